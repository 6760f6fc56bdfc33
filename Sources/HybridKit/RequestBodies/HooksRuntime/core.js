// HybridKit request hooks: XMLHttpRequest, fetch, navigator.sendBeacon and POST <form> submission.
//
// Injected at document start in every frame, with the native config as the argument of the outer function.
// Two strategies (chosen per page URL prefix):
//   bodyByID  - bodies the engine would lose or crash on (Blob, File, FormData holding files, ReadableStream,
//               Request objects with a body) are uploaded in binary chunks to /__hybrid__/body on the page's own
//               origin; the engine then sends the real request tagged with the body's id and no body, so status,
//               headers, events, redirects and responseType are the engine's own.
//   fullProxy - every request goes to /__hybrid__/proxy on the page's own origin and native networking performs
//               it; what must reflect the real request (responseURL, Response.url, redirected) is overridden.
// Checks use Object.prototype.toString, not instanceof, so bodies from other realms (iframes) are recognised.
//
// The hooks are the files of HooksRuntime/, split by the API they patch. None is a script on its own: RequestHooksScript
// joins them, in its order, into one script with one closure,
//   (function (config) {
//     <core.js>
//     function install(win, parentPageURL) { <page.js> <upload.js> <xhr.js> <fetch.js> <beacon.js> <form.js>
//       <frames.js> }
//     install(window, null);
//   })(<config JSON>);
// so the files share that closure's variables and nothing they declare reaches the page. This file is the body of
// the outer function (it has `config`): what every realm shares, taken once before any page script runs (the body
// key, the kept built-ins in `P`), and the helpers that tell what a body is and whether it may carry the key. The
// other files are the body of `install`, which hooks one realm (`win`).

'use strict';
const RESERVED = '/__hybrid__/';
const BODY_HEADER = 'X-Hybrid-Body';
const TYPE_HEADER = 'X-Hybrid-Content-Type';
const PROXY_HEADER = 'X-Hybrid-Proxy';
// Native reads a request body sent to the custom scheme only when it carries this key (one per view): reading
// a Blob-backed body there crashes WebKitGTK 2.50's UI process, and only bodies the hooks vouch for (never
// Blob-backed) get the key. Kept in this closure only; the page never sees it (see `P` below).
const KEY_HEADER = 'X-Hybrid-Body-Key';
const BODY_KEY = config.bodyKey;
config.bodyKey = null;
const INTERNAL = /^x-hybrid-/i;
// Fetch's method rules (https://fetch.spec.whatwg.org/#methods): a token, not a forbidden method, and the standard
// methods upper-cased whatever case the page used (any other method is sent as spelt).
const TOKEN = /^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/;
const FORBIDDEN_METHODS = Object.freeze(['CONNECT', 'TRACE', 'TRACK']);
const NORMALIZED_METHODS = Object.freeze(['DELETE', 'GET', 'HEAD', 'OPTIONS', 'POST', 'PUT']);

// ---- Built-ins the keyed paths use, taken before any page script runs ----
// A page can replace any built-in after document start, Function.prototype.call and apply, getters, prototype
// methods and iterators included. Whatever carries the body key, or decides whether a request gets it or which
// body it carries, calls only what is here: functions bound to the originals (`uncurry(f)(self, a)` is
// `f.call(self, a)` without looking `call` up), constructors kept as values, getters kept as functions. Taken
// from this realm once; frames installed from here (about:blank, srcdoc) use them too, so a page that touches a
// child realm before the hooks do cannot hand them its own functions. Brand checks (a getter that throws for
// anything but its own kind) work across realms, so bodies made in frames are recognised.
const uncurry = Function.prototype.bind.bind(Function.prototype.call);
const getterOf = (proto, name) => uncurry(Object.getOwnPropertyDescriptor(proto, name).get);
const TypedArray = Object.getPrototypeOf(Uint8Array);
const P = Object.freeze({
  create: Object.create,
  assign: Object.assign,
  isView: ArrayBuffer.isView,
  String,
  U8: Uint8Array,
  URL,
  Headers,
  FormData,
  XHR: XMLHttpRequest,
  fetch: uncurry(fetch),
  lower: uncurry(String.prototype.toLowerCase),
  upper: uncurry(String.prototype.toUpperCase),
  slice: uncurry(String.prototype.slice),
  test: uncurry(RegExp.prototype.test),
  startsWith: uncurry(String.prototype.startsWith),
  urlProtocol: getterOf(URL.prototype, 'protocol'),
  urlHost: getterOf(URL.prototype, 'host'),
  urlHref: getterOf(URL.prototype, 'href'),
  baseURI: getterOf(Node.prototype, 'baseURI'),
  // A window's `document` ([LegacyUnforgeable], so an own getter of the window): a brand check for real windows.
  windowDocument: uncurry(Object.getOwnPropertyDescriptor(window, 'document').get),
  headersForEach: uncurry(Headers.prototype.forEach),
  bufferLength: getterOf(ArrayBuffer.prototype, 'byteLength'),
  arrayBuffer: getterOf(TypedArray.prototype, 'buffer'),
  arrayOffset: getterOf(TypedArray.prototype, 'byteOffset'),
  arrayLength: getterOf(TypedArray.prototype, 'byteLength'),
  dataViewBuffer: getterOf(DataView.prototype, 'buffer'),
  dataViewOffset: getterOf(DataView.prototype, 'byteOffset'),
  dataViewLength: getterOf(DataView.prototype, 'byteLength'),
  blobSize: getterOf(Blob.prototype, 'size'),
  formHas: uncurry(FormData.prototype.has),
  formEntries: uncurry(FormData.prototype.entries),
  formAppend: uncurry(FormData.prototype.append),
  formNext: uncurry(Object.getPrototypeOf(new FormData().entries()).next),
  paramsHas: uncurry(URLSearchParams.prototype.has),
  streamLocked: getterOf(ReadableStream.prototype, 'locked'),
  documentElement: getterOf(Document.prototype, 'documentElement'),
  requestURL: getterOf(Request.prototype, 'url'),
  requestBody: getterOf(Request.prototype, 'body'),
  requestBlob: uncurry(Request.prototype.blob),
  Request,
  blobSlice: uncurry(Blob.prototype.slice),
  blobBytes: uncurry(Blob.prototype.arrayBuffer),
  open: uncurry(XMLHttpRequest.prototype.open),
  send: uncurry(XMLHttpRequest.prototype.send),
  abort: uncurry(XMLHttpRequest.prototype.abort),
  setRequestHeader: uncurry(XMLHttpRequest.prototype.setRequestHeader),
  upload: getterOf(XMLHttpRequest.prototype, 'upload'),
  status: getterOf(XMLHttpRequest.prototype, 'status'),
  responseText: getterOf(XMLHttpRequest.prototype, 'responseText'),
  listen: uncurry(EventTarget.prototype.addEventListener),
  unlisten: uncurry(EventTarget.prototype.removeEventListener),
  aborted: getterOf(AbortSignal.prototype, 'aborted'),
  parseJSON: JSON.parse,
});
const tagOf = (value) => Object.prototype.toString.call(value);
// Whether `value` passes `check` (a brand check: throws for anything of another kind).
const is = (check, value) => {
  try {
    check(value);
    return true;
  } catch (e) {
    return false;
  }
};
const isRequestObject = (value) => is(P.requestURL, value);
// Array.prototype.includes without the prototype: indices and length of an array the hooks own.
const includes = (list, value) => {
  for (let i = 0; i < list.length; i++) if (list[i] === value) return true;
  return false;
};

function strategyFor(pageURL) {
  if (config.degraded.some((prefix) => pageURL.startsWith(prefix))) return 'off';
  let best = null;
  for (const rule of config.rules) {
    if (pageURL.startsWith(rule.prefix) && (!best || rule.prefix.length > best.prefix.length)) best = rule;
  }
  return best ? best.strategy : config.defaultStrategy;
}

// What a body is, by brand checks, never by tags or prototypes a page can change (see `P`).
function kindOf(body) {
  if (body === null || body === undefined) return 'none';
  if (typeof body === 'string') return 'string';
  if (typeof body !== 'object' && typeof body !== 'function') return 'other';
  if (P.isView(body)) return 'view';
  if (is(P.bufferLength, body)) return 'buffer';
  if (is(P.blobSize, body)) return 'blob';
  if (is((value) => P.formHas(value, ''), body)) return 'formdata';
  if (is((value) => P.paramsHas(value, ''), body)) return 'params';
  if (is(P.streamLocked, body)) return 'stream';
  if (is(P.documentElement, body)) return 'document';
  return 'other';
}

// Calls `each(name, value)` for every entry of a FormData, through the kept iterator (no page iterator runs).
function forEachEntry(form, each) {
  const entries = P.formEntries(form);
  for (;;) {
    const step = P.formNext(entries);
    if (step.done) return;
    each(step.value[0], step.value[1]);
  }
}

function formHasFiles(form) {
  let files = false;
  forEachEntry(form, (name, value) => { if (typeof value !== 'string') files = true; });
  return files;
}

// Bodies that must not reach the engine's scheme-handler path as they are.
function needsStore(kind, body) {
  return kind === 'blob' || kind === 'stream' || kind === 'request' || (kind === 'formdata' && formHasFiles(body));
}

// The body to send with the key for a body of `kind`, or undefined when it may not carry the key: a value the
// hooks made themselves (bytes copied or viewed through kept getters, a FormData of strings rebuilt) or one whose
// kind was brand-checked and that the engine turns into text (URLSearchParams, a Document). So whatever a page
// replaced, a keyed body is never Blob-backed, and nothing the page holds can be changed into one later.
function engineSafe(kind, body) {
  try {
    switch (kind) {
      case 'none': return null;
      case 'string': return body;
      case 'other': return P.String(body);
      case 'buffer': return new P.U8(body, 0, P.bufferLength(body));
      case 'view':
        if (is(P.arrayBuffer, body)) return new P.U8(P.arrayBuffer(body), P.arrayOffset(body), P.arrayLength(body));
        return new P.U8(P.dataViewBuffer(body), P.dataViewOffset(body), P.dataViewLength(body));
      case 'params': return is((value) => P.paramsHas(value, ''), body) ? body : undefined;
      case 'document': return is(P.documentElement, body) ? body : undefined;
      case 'formdata': {
        const copy = new P.FormData();
        let files = false;
        forEachEntry(body, (name, value) => {
          if (typeof value === 'string') P.formAppend(copy, name, value);
          else files = true;
        });
        return files ? undefined : copy;
      }
      default: return undefined;
    }
  } catch (e) {
    return undefined;
  }
}

// Bytes read from a Blob the page may have given (its methods may be replaced), as a Uint8Array the hooks made:
// anything but an ArrayBuffer of `length` bytes fails the request with a message, instead of keying it.
function ownBytes(value, length) {
  if (!is(P.bufferLength, value) || P.bufferLength(value) !== length) {
    throw new HookError('a body read back as something other than its bytes (was Blob.prototype.slice or '
      + 'arrayBuffer replaced?)');
  }
  return new P.U8(value);
}

// Fetch options that carry the key are objects without a prototype: the engine reads every option by name, and a
// getter a page put on Object.prototype for an option not given would run with the options (and the key) as `this`.
// No rest or spread: both run Array.prototype[Symbol.iterator], which a page can replace, over the options.
const bare = (first, second) => {
  const options = P.assign(P.create(null), first);
  return second ? P.assign(options, second) : options;
};
class HookError extends Error {}
class ChannelUnreachable extends Error {}

// Set once the body channel did not answer (the app was suspended and iOS took its socket, say): the key goes with
// every body sent there, and another process may listen on that port from then on, so no realm of this page uses
// the channel again.
let channelLost = false;
