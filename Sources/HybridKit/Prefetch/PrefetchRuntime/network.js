// First-screen prefetch for a network page (one the engine loads over http(s), not from a package), the page side.
//
// A network page's requests never reach native code, so the main frame's same-origin GET and HEAD `fetch` asks
// native code first, through a script message the engine stamps with the sending frame (WebKitGTK: HybridKit's
// web-process extension's __hybridFramePost; WKWebView: a reply handler, whose WKFrameInfo the engine fills). Native
// answers from a prefetch only when the engine says the main frame of the declared origin sent it and the request
// matches; on a hit the page gets a Response built from that answer, on anything else (a miss, a refusal, no answer,
// an answer of the wrong shape) the request goes to the network through the engine's own fetch, as if this script
// did not exist. XMLHttpRequest is not answered (its state machine cannot be replayed cleanly): it goes to the network.
//
// Joined by FirstScreenPrefetch after HooksRuntime/response.js as the body of `(function (config) { … })(config)`:
// config = { token, origin, handler }. Injected at document start into the main frame only, before the bridge
// runtime (which takes __hybridFramePost next and removes it from the page's reach). Everything used once page
// scripts run is taken here, before any of them: a page may replace fetch, Request, Response, Headers, JSON,
// Promise, prototypes and getters later, and then gets either its own answer or the network, never another's.

'use strict';

if (window.top !== window || location.origin !== config.origin) return;

const uncurry = Function.prototype.bind.bind(Function.prototype.call);
const getter = (proto, name) => uncurry(Object.getOwnPropertyDescriptor(proto, name).get);
const apply = Reflect.apply;
const define = Object.defineProperty;
const hasOwn = uncurry(Object.prototype.hasOwnProperty);
const isArray = Array.isArray;
const parseJSON = JSON.parse;
const stringify = JSON.stringify;
const freeze = Object.freeze;
const NativePromise = Promise;
const NativeRequest = Request;
const NativeResponse = Response;
const NativeHeaders = Headers;
const NativeURL = URL;
const Bytes = Uint8Array;
const requestMethod = getter(Request.prototype, 'method');
const requestURL = getter(Request.prototype, 'url');
const requestCredentials = getter(Request.prototype, 'credentials');
const requestMode = getter(Request.prototype, 'mode');
const requestRedirect = getter(Request.prototype, 'redirect');
const requestIntegrity = getter(Request.prototype, 'integrity');
const requestHeaders = getter(Request.prototype, 'headers');
const requestSignal = getter(Request.prototype, 'signal');
const signalAborted = getter(AbortSignal.prototype, 'aborted');
const listen = uncurry(EventTarget.prototype.addEventListener);
const cloneResponse = uncurry(Response.prototype.clone);
const urlOrigin = getter(URL.prototype, 'origin');
const headersForEach = uncurry(Headers.prototype.forEach);
const headersAppend = uncurry(Headers.prototype.append);
const charCodeAt = uncurry(String.prototype.charCodeAt);
// A page its service worker controls has its fetch answered by the worker, never by a prefetch.
const serviceWorkers = typeof ServiceWorkerContainer === 'function' && navigator.serviceWorker
  ? navigator.serviceWorker : null;
const controller = serviceWorkers ? getter(ServiceWorkerContainer.prototype, 'controller') : null;
const originalFetch = window.fetch;
// Not removed here: the bridge runtime, injected after this script, takes it too and then removes it.
const framePost = typeof window.__hybridFramePost === 'function' ? window.__hybridFramePost : null;
const handlers = window.webkit && window.webkit.messageHandlers;
const handler = handlers ? handlers[config.handler] : undefined;
const handlerPost = handler ? handler.postMessage : undefined;
const origin = config.origin;
const token = config.token;
// Native says when nothing is left to claim for this document: from then on requests go straight to the network.
let open = Boolean(framePost || handlerPost);

/** Posts `message` and resolves with native's answer as a value, or null (never rejects). */
function ask(message) {
  const text = stringify(message);
  if (framePost) {
    return new NativePromise((resolve) => {
      try {
        framePost(config.handler, text, (reply) => {
          try {
            resolve(parseJSON(reply));
          } catch (e) {
            resolve(null);
          }
        });
      } catch (e) {
        resolve(null);
      }
    });
  }
  return (async () => {
    try {
      return await apply(handlerPost, handler, [text]);
    } catch (e) {
      return null;
    }
  })();
}

/** Whether `value` is an engine-made Request (a page's look-alike fails the getter's brand check). */
function isRequest(value) {
  try {
    requestMethod(value);
    return true;
  } catch (e) {
    return false;
  }
}

/** The request `fetch(input, init)` makes, as native matches it; null when no prefetch could answer it. */
function describe(input, init) {
  // A request with a body is never answered, and making a Request of it here would take its body (a Request's,
  // or a stream's) before the engine's fetch reads it: the page's fetch would then fail.
  if (init !== undefined && init !== null && init.body !== undefined && init.body !== null) return null;
  if (isRequest(input)) {
    const method = requestMethod(input);
    if (method !== 'GET' && method !== 'HEAD') return null;
  }
  if (serviceWorkers && controller(serviceWorkers) !== null) return null;
  const request = new NativeRequest(input, init);
  // Aborted before it asked: the engine's fetch rejects it, and no prefetch is taken for it.
  if (signalAborted(requestSignal(request))) return null;
  const method = requestMethod(request);
  if (method !== 'GET' && method !== 'HEAD') return null;
  if (requestMode(request) === 'no-cors' || requestRedirect(request) !== 'follow') return null;
  if (requestIntegrity(request) !== '') return null;
  const url = requestURL(request);
  if (urlOrigin(new NativeURL(url)) !== origin) return null;
  const headers = [];
  let count = 0;
  headersForEach(requestHeaders(request), (value, name) => {
    define(headers, count, { value: [name, value], enumerable: true, writable: true, configurable: true });
    count += 1;
  });
  const message = { v: 1, k: 'fetch', t: token, m: method, u: url, c: requestCredentials(request), h: headers };
  return { request, method, message };
}

const BASE64 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
const SEXTETS = new Bytes(128).fill(255);
for (let i = 0; i < 64; i += 1) SEXTETS[charCodeAt(BASE64, i)] = i;

/** Standard base64 to bytes; null unless well formed. */
function decodeBase64(text) {
  const length = text.length;
  if (length % 4 !== 0) return null;
  let padding = 0;
  if (length > 0 && charCodeAt(text, length - 1) === 61) padding += 1;
  if (length > 1 && charCodeAt(text, length - 2) === 61) padding += 1;
  const out = new Bytes((length / 4) * 3 - padding);
  let at = 0;
  for (let i = 0; i < length; i += 4) {
    let bits = 0;
    for (let j = 0; j < 4; j += 1) {
      const code = charCodeAt(text, i + j);
      const last = i + 4 === length;
      const sextet = code === 61 && last && j >= 4 - padding ? 0 : code < 128 ? SEXTETS[code] : 255;
      if (sextet === 255) return null;
      bits = bits * 64 + sextet;
    }
    if (at < out.length) out[at++] = (bits >> 16) & 255;
    if (at < out.length) out[at++] = (bits >> 8) & 255;
    if (at < out.length) out[at++] = bits & 255;
  }
  return out;
}

function own(object, name, type) {
  return hasOwn(object, name) && typeof object[name] === type;
}

/** The Response for a hit; null for anything else (then the network answers). */
function response(answer, method) {
  if (answer === null || typeof answer !== 'object') return null;
  if (own(answer, 'more', 'boolean') && !answer.more) open = false;
  if (!own(answer, 'a', 'string') || answer.a !== 'hit') return null;
  if (!own(answer, 's', 'number') || !own(answer, 'st', 'string') || !own(answer, 'u', 'string')) return null;
  if (!own(answer, 'r', 'boolean') || !own(answer, 'b', 'string') || !own(answer, 'e', 'string')) return null;
  if (!hasOwn(answer, 'h') || !isArray(answer.h)) return null;
  if (urlOrigin(new NativeURL(answer.u)) !== origin) return null;
  const headers = new NativeHeaders();
  const list = answer.h;
  for (let i = 0; i < list.length; i += 1) {
    const pair = list[i];
    if (!isArray(pair) || pair.length !== 2 || typeof pair[0] !== 'string' || typeof pair[1] !== 'string') return null;
    headersAppend(headers, pair[0], pair[1]);
  }
  const body = answer.e === 'text' ? answer.b : answer.e === 'base64' ? decodeBase64(answer.b) : null;
  if (body === null) return null;
  return nativeResponse(NativeResponse, define, body, {
    status: answer.s, statusText: answer.st, headers, url: answer.u, redirected: answer.r, type: 'basic', method,
  }, cloneResponse);
}

const answering = function fetch(input, init) {
  let asked = null;
  if (open) {
    try {
      asked = describe(input, init);
    } catch (e) {
      asked = null;
    }
  }
  if (asked === null) return apply(originalFetch, this, arguments);
  const self = this;
  const args = arguments;
  const signal = requestSignal(asked.request);
  return new NativePromise((resolve) => {
    let settled = false;
    // The engine's fetch, which rejects an aborted request as the network path would.
    const network = () => {
      if (settled) return;
      settled = true;
      resolve(apply(originalFetch, self, args));
    };
    // An abort while native code is asked rejects at once, as the engine's fetch would; the answer is dropped.
    // The options have no prototype: a page's `Object.prototype.signal` or `once` getter is never read here.
    listen(signal, 'abort', network, { __proto__: null, once: true });
    (async () => {
      let answered = null;
      try {
        answered = response(await ask(asked.message), asked.method);
      } catch (e) {
        answered = null;
      }
      if (answered === null || signalAborted(signal)) return network();
      if (settled) return;
      settled = true;
      resolve(answered);
    })();
  });
};
window.fetch = answering;

const askFor = (kind) => ask({ v: 1, k: kind, t: token });
define(window, 'hybridPrefetch', {
  value: freeze({
    /** What native code prefetched for this page: [{method, url, credentials, state: 'used' | 'waiting'}]. */
    requests: async () => {
      const answer = await askFor('list');
      return answer && own(answer, 'a', 'string') && answer.a === 'list' && isArray(answer.list) ? answer.list : [];
    },
    /** Marks the first screen as shown, for the host's timing marks. */
    firstScreen: async () => {
      await askFor('first-screen');
    },
  }),
});
