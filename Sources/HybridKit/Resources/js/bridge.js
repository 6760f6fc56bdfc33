// HybridKit bridge runtime. Injected at document start into every frame, wrapped by the native side as
//   (function (config) { <this file> <wvjb.js> })(<config JSON>);
// so nothing here leaks into the page's global scope except `window.hybrid` (and the WVJB shim).
//
// Wire format, page → native (strings posted to a script message handler):
//   "H1 <kind> <id> <token> <frame> <origin> <module> <method>\n<JSON payload>"
// A space-separated head that is cheap to parse natively, then the payload bytes that native decodes
// straight into the method's argument type. The main frame sends the messages of one turn in one post,
// separated by newlines; subframes send one message per post (each post has its own reply).
// Synchronous calls (`hybrid.callSync`, `hybrid.has`, DSBridge's `call` without a callback) are one prompt():
//   "H1sync <sync key>\n" + the same head and payload; the prompt returns {"ok":…,"r"|"e":…} as JSON text.
// On WebKitGTK the web-process extension's __hybridFrameSync makes the prompt, stamped with the frame; elsewhere
// the engine names the frame of a prompt itself (WKWebView). The page's main thread waits for the answer.
// Native → page: `receiver(["<delivery key>", "<JSON array of messages>"])`, one evaluation per batch in the main
// frame, or the reply of a reply-capable handler in subframes. The batch is JSON text parsed here (never
// JavaScript source, where a "__proto__" key would set a prototype), so every frame reads the same data the
// same way; the key proves the evaluation came from native, since the page can call the receiver too.
'use strict';

if (window.hybrid && window.hybrid.__runtime === config.runtimeId) return;

// Taken before any page script runs: a page that replaces JSON.parse or a handler's postMessage later must
// not see or forge what passes between this runtime and native.
const parseJSON = JSON.parse;
const applyFunction = Reflect.apply;
const handlers = window.webkit && window.webkit.messageHandlers;
const mainHandler = handlers && handlers[config.handler];
const replyHandler = handlers && handlers[config.replyHandler];
const mainPost = mainHandler && mainHandler.postMessage;
const replyPost = replyHandler && replyHandler.postMessage;
// On WebKitGTK, HybridKit's web-process extension defines __hybridFramePost in every frame: it posts like the
// handlers above, but stamped with the frame's real URI, so a frame cannot pose as another. Taken here,
// before any page script runs, and removed from the page's reach.
const framePost = typeof window.__hybridFramePost === 'function' ? window.__hybridFramePost : null;
if (framePost) delete window.__hybridFramePost;
// The synchronous channel, taken the same way; without the extension, the prompt function as it is now
// (before the page could replace it and read what passes).
const frameSync = typeof window.__hybridFrameSync === 'function' ? window.__hybridFrameSync : null;
if (frameSync) delete window.__hybridFrameSync;
const nativePrompt = window.prompt;
const stringify = JSON.stringify;
const canPostMain = Boolean(framePost || mainHandler);
const canPostWithReply = Boolean(framePost || replyHandler);

function postMain(text) {
  if (framePost) framePost(config.handler, text);
  else applyFunction(mainPost, mainHandler, [text]);
}

function postWithReply(text) {
  if (!framePost) return applyFunction(replyPost, replyHandler, [text]);
  return new Promise((resolve, reject) => {
    framePost(config.replyHandler, text, (reply) => {
      try {
        resolve(parseJSON(reply));
      } catch (e) {
        reject(e);
      }
    });
  });
}
const isMainFrame = window === window.top;
const origin = String(location.origin);
// The security origin the engine applies (`null` for a sandboxed frame, whatever its URL), read before any
// page script runs: published state is kept or dropped by it.
const securityOrigin = String(self.origin);
const token = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
const NAME = /^[A-Za-z_$][\w$.-]{0,63}$/;
// WebViewJavascriptBridge handler names are any text ('ObjC Echo'); native takes up to 128 bytes, no controls.
const FREE_FORM_NAME = /^[^\u0000-\u001f\u007f-\u009f]{1,128}$/;

/** An error from the bridge. `code` says which kind: see hybrid.d.ts. */
class HybridError extends Error {
  constructor(code, message, details) {
    super(message);
    this.name = 'HybridError';
    this.code = code;
    if (details !== undefined) this.details = details;
  }
}

let nextId = 1;
let state = 'connecting'; // → 'ready'; 'closed' after pagehide
let modules = {};
const pending = new Map(); // id → { resolve, reject, deadline, what }
const queued = []; // messages written before the native side said ready
const listeners = new Map(); // event name → Set of functions
const jsHandlers = new Map(); // name → function(data) → value | Promise

function head(kind, id, module, method) {
  return `H1 ${kind} ${id} ${token} ${isMainFrame ? 'main' : 'sub'} ${origin} ${module} ${encodeURIComponent(method)}\n`;
}

// Main-frame messages written in the same turn leave together. The first message of a turn goes at once
// (a lone call pays nothing); later ones wait for the microtask checkpoint and leave in one post, joined by
// newlines (JSON.stringify never writes a raw newline, so they cannot be confused). Batches stay under
// 1 MB: one giant post costs more to copy and parse than a few medium ones.
const maxBatchLength = Math.min(config.maxMessageLength, 1 << 20);
let outgoing = [];
let outgoingLength = 0;
let turnOpen = false;

function flushOutgoing() {
  if (!outgoing.length) return;
  const text = outgoing.join('\n');
  outgoing = [];
  outgoingLength = 0;
  postMain(text);
}

function transmit(text) {
  if (isMainFrame && canPostMain) {
    if (!turnOpen) {
      turnOpen = true;
      queueMicrotask(() => {
        turnOpen = false;
        flushOutgoing();
      });
      postMain(text);
      return;
    }
    if (outgoingLength + text.length + 1 > maxBatchLength) flushOutgoing();
    outgoing.push(text);
    outgoingLength += text.length + 1;
  } else if (canPostWithReply) {
    postWithReply(text).then(dispatch, (error) => failAll('internal', `bridge transport failed: ${error && error.message}`));
  } else {
    throw new HybridError('internal', 'the native bridge is not available in this frame');
  }
}

function send(text) {
  if (state === 'ready') transmit(text);
  else queued.push(text);
}

function settle(id, error, value) {
  const call = pending.get(id);
  if (!call) return; // already settled (timeout, navigation) or not ours: never settle twice
  pending.delete(id);
  if (error) call.reject(error);
  else call.resolve(value);
}

// One timer for every pending call, armed for the earliest deadline, instead of a timer per call: with the
// usual uniform timeout a new call never moves the earliest deadline, so a call costs no timer work at all.
let timeoutTimer = 0;
let timeoutAt = Infinity;

function armTimeouts(deadline) {
  if (deadline >= timeoutAt) return;
  clearTimeout(timeoutTimer);
  timeoutAt = deadline;
  timeoutTimer = setTimeout(expireCalls, Math.max(0, deadline - Date.now()));
}

function expireCalls() {
  timeoutAt = Infinity;
  const now = Date.now();
  let next = Infinity;
  for (const [id, call] of Array.from(pending)) {
    if (call.deadline <= now) settle(id, new HybridError('timeout', call.what));
    else if (call.deadline < next) next = call.deadline;
  }
  if (next !== Infinity) armTimeouts(next);
}

function failAll(code, message) {
  for (const id of Array.from(pending.keys())) settle(id, new HybridError(code, message));
}

function toError(e) {
  return new HybridError(e && e.code ? String(e.code) : 'internal', e && e.message ? String(e.message) : 'unknown error', e && e.details);
}

function call(module, method, args, optionsOrCallback, maybeCallback) {
  const callback = typeof optionsOrCallback === 'function' ? optionsOrCallback : maybeCallback;
  const options = typeof optionsOrCallback === 'object' && optionsOrCallback !== null ? optionsOrCallback : {};
  const promise = new Promise((resolve, reject) => {
    if (state === 'closed') return reject(new HybridError('navigated', 'the page is going away'));
    const methodPattern = module === config.wvjbModule ? FREE_FORM_NAME : NAME;
    if (!NAME.test(String(module)) || !methodPattern.test(String(method))) {
      return reject(new HybridError('bad_message', `invalid module or method name: ${String(module)}.${String(method)}`));
    }
    let payload;
    try {
      payload = JSON.stringify(args === undefined ? null : args);
    } catch (e) {
      return reject(new HybridError('bad_arguments', `arguments cannot be sent: ${e.message}`));
    }
    const id = nextId++;
    let text;
    try {
      text = head('call', id, module, method) + payload;
    } catch (_) {
      // encodeURIComponent refuses lone surrogates
      return reject(new HybridError('bad_message', `invalid method name: ${String(method)}`));
    }
    if (text.length > config.maxMessageLength) {
      return reject(new HybridError('bad_message', `message of ${text.length} characters exceeds the limit of ${config.maxMessageLength}`));
    }
    const timeout = options.timeout === undefined ? config.callTimeoutMs : Number(options.timeout);
    const deadline = timeout > 0 ? Date.now() + timeout : Infinity;
    pending.set(id, { resolve, reject, deadline, what: `${module}.${method} did not answer within ${timeout} ms` });
    armTimeouts(deadline);
    try {
      send(text);
    } catch (e) {
      settle(id, e instanceof HybridError ? e : new HybridError('internal', String(e && e.message)));
    }
  });
  if (callback) promise.then((value) => callback(null, value), (error) => callback(error));
  return promise;
}

// Streams: id → state. The opening message asks for the first window of elements; the page asks for more
// (`pull`) when it has read half of what it holds, so each side holds at most about a window.
const streams = new Map();

function streamSettle(s) {
  while (s.waiters.length && s.buffer.length) s.waiters.shift().resolve({ value: s.buffer.shift(), done: false });
  if (!s.buffer.length && (s.done || s.error)) {
    streams.delete(s.id);
    for (const waiter of s.waiters.splice(0)) {
      if (s.error) waiter.reject(s.error);
      else waiter.resolve({ value: undefined, done: true });
    }
  }
}

function streamPull(s) {
  if (s.pulling || s.done || s.error || s.buffer.length > config.streamWindow / 2) return;
  s.pulling = true;
  try {
    send(head('pull', s.id, '-', '-') + String(config.streamWindow));
  } catch (e) {
    s.pulling = false;
    s.error = e instanceof HybridError ? e : new HybridError('internal', String(e && e.message));
    streamSettle(s);
  }
}

function streamChunk(m) {
  const s = streams.get(m.id);
  if (!s || s.closed) return;
  s.pulling = false;
  if (Array.isArray(m.d)) for (const value of m.d) s.buffer.push(value);
  if (m.end) {
    if (m.e) s.error = toError(m.e);
    else s.done = true;
  }
  streamSettle(s);
  if (s.waiters.length || s.buffer.length <= config.streamWindow / 2) streamPull(s);
}

function failStreams(code, message) {
  for (const s of Array.from(streams.values())) {
    s.error = new HybridError(code, message);
    s.buffer.length = 0;
    streamSettle(s);
  }
}

/**
 * Reads a native stream method: an async iterator (`for await (const x of hybrid.stream(…))`), or
 * `.forEach(fn)` for a callback per element. Leaving the loop early cancels the native side.
 */
function openStream(module, method, args) {
  const s = { id: 0, buffer: [], waiters: [], pulling: true, done: false, error: null, closed: false };
  const fail = (error) => {
    s.error = error;
    return iterator;
  };
  const iterator = {
    next() {
      if (s.buffer.length) {
        const value = s.buffer.shift();
        streamPull(s);
        if (!s.buffer.length && (s.done || s.error)) streamSettle(s);
        return Promise.resolve({ value, done: false });
      }
      if (s.error) return Promise.reject(s.error);
      if (s.done || s.closed) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => {
        s.waiters.push({ resolve, reject });
        streamPull(s);
      });
    },
    return(value) {
      if (!s.closed && !s.done && !s.error && streams.has(s.id)) {
        try {
          send(head('cancel', s.id, '-', '-') + 'null');
        } catch (_) {
          // the page is going away: native cancels the stream with it
        }
      }
      s.closed = true;
      s.buffer.length = 0;
      streams.delete(s.id);
      for (const waiter of s.waiters.splice(0)) waiter.resolve({ value: undefined, done: true });
      return Promise.resolve({ value, done: true });
    },
    [Symbol.asyncIterator]() { return iterator; },
    /** Calls `fn` with each element; resolves when the stream ends, rejects with its error. */
    async forEach(fn) {
      for await (const value of iterator) fn(value);
    },
  };
  if (state === 'closed') return fail(new HybridError('navigated', 'the page is going away'));
  if (!NAME.test(String(module)) || !NAME.test(String(method))) {
    return fail(new HybridError('bad_message', `invalid module or method name: ${String(module)}.${String(method)}`));
  }
  let payload;
  try {
    payload = stringify(args === undefined ? null : args);
  } catch (e) {
    return fail(new HybridError('bad_arguments', `arguments cannot be sent: ${e.message}`));
  }
  const text = head('stream', nextId, module, method) + payload;
  if (text.length > config.maxMessageLength) {
    return fail(new HybridError('bad_message', `message of ${text.length} characters exceeds the limit of ${config.maxMessageLength}`));
  }
  s.id = nextId++;
  streams.set(s.id, s);
  try {
    send(text);
  } catch (e) {
    streams.delete(s.id);
    return fail(e instanceof HybridError ? e : new HybridError('internal', String(e && e.message)));
  }
  return iterator;
}

function syncRound(text) {
  const message = `H1sync ${config.syncKey}\n${text}`;
  const answer = frameSync ? frameSync(message) : applyFunction(nativePrompt, window, [message, '']);
  if (typeof answer !== 'string') {
    // WebKit answers null at once where dialogs are not allowed: a sandboxed frame without allow-modals.
    if (securityOrigin === 'null') throw new HybridError('denied', 'this frame cannot block for native (a sandboxed frame needs allow-modals)');
    throw new HybridError('internal', 'synchronous calls are not answered in this view: the host must let HybridPage see script dialogs first');
  }
  let reply;
  try {
    reply = parseJSON(answer);
  } catch (_) {
    throw new HybridError('internal', 'unreadable answer to a synchronous call');
  }
  if (reply && reply.ok === true) return reply.r;
  throw toError(reply && reply.e);
}

/** Calls a method declared synchronous natively and returns its result in this turn (or throws a HybridError). */
function callSync(module, method, args) {
  if (state === 'closed') throw new HybridError('navigated', 'the page is going away');
  const methodPattern = module === config.wvjbModule ? FREE_FORM_NAME : NAME;
  if (!NAME.test(String(module)) || !methodPattern.test(String(method))) {
    throw new HybridError('bad_message', `invalid module or method name: ${String(module)}.${String(method)}`);
  }
  let payload;
  try {
    payload = stringify(args === undefined ? null : args);
  } catch (e) {
    throw new HybridError('bad_arguments', `arguments cannot be sent: ${e.message}`);
  }
  let text;
  try {
    text = head('call', nextId++, module, method) + payload;
  } catch (_) {
    throw new HybridError('bad_message', `invalid method name: ${String(method)}`);
  }
  if (text.length > config.maxMessageLength) {
    throw new HybridError('bad_message', `message of ${text.length} characters exceeds the limit of ${config.maxMessageLength}`);
  }
  return syncRound(text);
}

/** 'sync', 'async' or null: how this frame may call `module.method` (null when it may not, or it does not exist). */
function has(name, maybeMethod) {
  let module = String(name);
  let method = maybeMethod;
  if (method === undefined) {
    const dot = module.lastIndexOf('.');
    if (dot <= 0) return null;
    method = module.slice(dot + 1);
    module = module.slice(0, dot);
  }
  try {
    return callSync('$hybrid', 'has', [module, String(method)]);
  } catch (e) {
    if (e instanceof HybridError && (e.code === 'bad_message' || e.code === 'denied')) return null;
    throw e;
  }
}

// Published state: name → deep-frozen value, so a page that changes what it read changes nothing for others.
const stateValues = new Map();
const stateTexts = new Map();
const stateListeners = new Map();
const STATE_CHANGED = '\u0000state';

function deepFreeze(value) {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const key of Object.keys(value)) deepFreeze(value[key]);
  }
  return value;
}

function setState(name, value) {
  const text = stringify(value);
  if (stateTexts.get(name) === text) return;
  if (value === undefined) {
    stateTexts.delete(name);
    stateValues.delete(name);
  } else {
    stateTexts.set(name, text);
    stateValues.set(name, deepFreeze(value));
  }
  const set = stateListeners.get(name);
  if (!set) return;
  for (const fn of Array.from(set)) {
    try {
      fn(stateValues.get(name));
    } catch (e) {
      setTimeout(() => { throw e; });
    }
  }
}

/** The document-start snapshot: every entry says who may read it; keep only what this frame may. */
function applyStateSnapshot(entries) {
  if (!Array.isArray(entries)) return;
  for (const e of entries) {
    if (!e || typeof e.n !== 'string') continue;
    const frameOK = isMainFrame || e.s === true;
    const originOK = e.o === null || (Array.isArray(e.o) && securityOrigin !== 'null' && e.o.includes(securityOrigin));
    if (frameOK && originOK) setState(e.n, e.v);
  }
}

/** Native's word on what this frame may read now: the whole set (names missing from it are gone). */
function applyState(values) {
  if (!values || typeof values !== 'object') return;
  for (const name of Array.from(stateValues.keys())) if (!Object.prototype.hasOwnProperty.call(values, name)) setState(name, undefined);
  for (const name of Object.keys(values)) setState(name, values[name]);
}

function emit(name, data) {
  const set = listeners.get(name);
  if (!set) return;
  for (const fn of Array.from(set)) {
    try {
      fn(data);
    } catch (e) {
      setTimeout(() => { throw e; }); // report, but let the other listeners run
    }
  }
}

function relayToChildren(name, data) {
  for (let i = 0; i < window.frames.length; i++) {
    try {
      window.frames[i].postMessage({ __hybridRelay: config.relaySecret, name, data }, '*');
    } catch (_) {
      // a frame that went away while we looped
    }
  }
}

function deliverEvent(name, data) {
  if (name === STATE_CHANGED) {
    // Only the news travels between frames; each frame asks native for what it may read.
    if (state === 'ready') sayHello();
  } else {
    emit(name, data);
  }
  relayToChildren(name, data);
}

// Finds handlers registered through another library's API (DSBridge's `register`), for names not in jsHandlers.
let handlerFallback = null;

async function runJSHandler(message) {
  const fn = jsHandlers.get(message.n) || (handlerFallback && handlerFallback(message.n));
  let reply;
  try {
    if (!fn) throw new HybridError('unknown_method', `no JavaScript handler named ${message.n}`);
    reply = { ok: true, r: (await fn(message.d)) ?? null };
  } catch (e) {
    reply = { ok: false, e: { code: (e && e.code) || 'internal', message: String((e && e.message) || e) } };
  }
  try {
    send(head('jsreply', message.id, '-', '-') + JSON.stringify(reply));
  } catch (_) {
    send(head('jsreply', message.id, '-', '-') + JSON.stringify({ ok: false, e: { code: 'bad_arguments', message: 'handler result cannot be sent' } }));
  }
}

/** Entry point for native's evaluations in this frame, `[deliveryKey, batchText]`: anything else is ignored. */
function receive(delivery) {
  if (!delivery || delivery[0] !== config.deliveryKey || typeof delivery[1] !== 'string') return;
  let batch;
  try {
    batch = parseJSON(delivery[1]);
  } catch (_) {
    return;
  }
  dispatch(batch);
}

/** Handles native → page messages: one message or an array of them, from native only. */
function dispatch(batch) {
  const messages = Array.isArray(batch) ? batch : batch ? [batch] : [];
  for (const m of messages) {
    if (!m || typeof m !== 'object') continue;
    // Messages that answer or address one document carry its token: skip those for an earlier document of
    // this frame, or for another frame.
    const addressed = m.k === 'ready' || m.k === 'r' || m.k === 'jscall';
    if (addressed ? m.p !== token : m.p !== undefined && m.p !== token) continue;
    switch (m.k) {
      case 'ready': {
        applyState(m.state);
        if (state !== 'connecting') break;
        const first = readyResolve !== null;
        state = 'ready';
        modules = m.modules || {};
        while (queued.length) transmit(queued.shift());
        if (first) {
          readyResolve(modules);
          readyResolve = null;
          emit('ready', modules);
        } else if (restoredFromCache) {
          // Scripts of a page restored from the back/forward cache do not run again: this event is its
          // only chance to refresh what went stale while it was away. Sent once the bridge works again.
          restoredFromCache = false;
          emit('restore', { persisted: true });
        }
        break;
      }
      case 'r':
        settle(m.id, m.ok ? null : toError(m.e), m.r);
        break;
      case 'sc':
        streamChunk(m);
        break;
      case 'ev':
        deliverEvent(m.e, m.d);
        break;
      case 'jscall':
        runJSHandler(m);
        break;
      case 'err':
        emit('error', toError(m.e));
        break;
      case 'st0':
        applyStateSnapshot(m.e);
        break;
      case 'stc':
        deliverEvent(STATE_CHANGED, null);
        break;
    }
  }
}

let readyResolve;
const ready = new Promise((resolve) => { readyResolve = resolve; });

// A relayed event is taken from the parent only when that parent is the main frame, or has this frame's own
// origin (and so could script this frame anyway). The relay reaches cross-origin children, whose scripts can
// read the secret in it: without this rule such a frame could pose as native to the frames it embeds.
window.addEventListener('message', (event) => {
  const data = event.data;
  if (!data || data.__hybridRelay !== config.relaySecret || event.source !== window.parent || isMainFrame) return;
  // (Opaque origins serialize as 'null' and never equal one another.)
  if (window.parent !== window.top && (event.origin !== origin || origin === 'null')) return;
  deliverEvent(data.name, data.data);
});

// Pending calls of a page that is going away reject now, with a reason, rather than never: native
// abandons them when the next document commits. A page kept in the back/forward cache may come back;
// it then says hello again and carries on.
window.addEventListener('pagehide', (event) => {
  state = event.persisted ? 'connecting' : 'closed';
  failAll('navigated', 'the page navigated away before the call finished');
  failStreams('navigated', 'the page navigated away while reading the stream');
});
let restoredFromCache = false;
window.addEventListener('pageshow', (event) => {
  if (event.persisted && state === 'connecting') {
    restoredFromCache = true;
    sayHello();
  }
});

const api = {
  __runtime: config.runtimeId,
  version: config.version,
  /** Calls `module.method(args)` natively; resolves with its result or rejects with a HybridError. */
  call,
  /** Adds a listener for a native event (and 'ready', 'error'). Returns a function that removes it. */
  on(name, fn) {
    if (typeof fn !== 'function') throw new TypeError('listener must be a function');
    if (!listeners.has(name)) listeners.set(name, new Set());
    listeners.get(name).add(fn);
    if (name === 'ready' && state === 'ready') queueMicrotask(() => fn(modules));
    return () => api.off(name, fn);
  },
  off(name, fn) {
    const set = listeners.get(name);
    if (!set) return;
    if (fn) set.delete(fn);
    else set.clear();
  },
  /** Registers a JavaScript handler native code can call. Returns a function that removes it. */
  handle(name, fn) {
    if (typeof fn !== 'function') throw new TypeError('handler must be a function');
    jsHandlers.set(name, fn);
    return () => jsHandlers.delete(name);
  },
  /** Calls a method declared synchronous natively: returns its result now, blocking this frame until native answers. */
  callSync,
  /** Reads a native stream: `for await (const x of hybrid.stream(module, method, args))`, or `.forEach(fn)`. */
  stream: openStream,
  /** 'sync', 'async', 'stream' or null: whether this frame may call `module.method`, and how. Synchronous. */
  has,
  /** Values native publishes, readable synchronously from document start where the module's access allows. */
  state: Object.freeze({
    get(name) { return stateValues.get(String(name)); },
    keys() { return Array.from(stateValues.keys()); },
    /** Calls `fn(value)` when `name` changes (value undefined when withdrawn). Returns a function that removes it. */
    on(name, fn) {
      if (typeof fn !== 'function') throw new TypeError('listener must be a function');
      const key = String(name);
      if (!stateListeners.has(key)) stateListeners.set(key, new Set());
      stateListeners.get(key).add(fn);
      return () => { const set = stateListeners.get(key); if (set) set.delete(fn); };
    },
  }),
  /** Resolves with the native module list once the bridge is ready. */
  ready,
  get isReady() { return state === 'ready'; },
  get modules() { return modules; },
  HybridError,
};
Object.freeze(api);
Object.defineProperty(window, 'hybrid', { value: api, writable: false, configurable: false, enumerable: false });
Object.defineProperty(window, config.receiver, { value: receive, writable: false, configurable: false, enumerable: false });

// Engines ignore window.close() in a window no script opened, which is every hybrid page: the host hears it
// instead, and decides.
if (isMainFrame) {
  window.close = function close() {
    call('$hybrid', 'close', null).catch(() => {});
  };
}

// Say hello; native answers 'ready' when it is (queued calls wait until then).
function sayHello() {
  const hello = head('hello', 0, '-', '-') + '{}';
  if (isMainFrame && canPostMain) postMain(hello);
  else if (canPostWithReply) postWithReply(hello).then(dispatch, () => {});
}
sayHello();
