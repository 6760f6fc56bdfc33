// HybridKit bridge runtime: the page's side. The ready promise, the page lifecycle (pagehide, pageshow) and relayed
// events, the frozen `window.hybrid` object and the receiver (defined on window, neither writable nor
// configurable), window.close, and the hello that starts the bridge. Last of the bridge's own files.
// Part of the bridge runtime's closure: see transport.js for how BridgeRuntimeScript joins BridgeRuntime/. Not a script
// on its own; it uses from the shared scope:
//   `config` and the functions and state of every file before it.

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
  // A document that goes for good tells native, which ends its calls and streams at once: a frame that reloads or
  // is removed would otherwise keep them open until the main frame navigates. Not one the back/forward cache keeps.
  if (!event.persisted && state !== 'closed') {
    try {
      send(head('bye', 0, '-', '-') + 'null');
    } catch (_) {
      // nothing to tell: native ends them when the main frame navigates
    }
  }
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
  /**
   * Posts a message the host awaits (`container.messages(name)`) without a module of its own; resolves once native
   * took it, rejects when the container's page-message rule refuses this frame.
   */
  post(name, value) {
    return call('$messages', 'post', { name: String(name), value: value === undefined ? null : value });
  },
  /** Calls a method declared synchronous natively: returns its result now, blocking this frame until native answers. */
  callSync,
  /** Reads a native stream: `for await (const x of hybrid.stream(module, method, args))`, or `.forEach(fn)`. */
  stream: openStream,
  // Typed module proxies (proxies.js).
  /** A proxy of native module `name`: `hybrid.module('cart').add(item)` is `hybrid.call('cart', 'add', item)`. */
  module: moduleProxy,
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
