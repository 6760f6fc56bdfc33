// HybridKit request hooks: the realm being hooked. Which page it is and its origin (where the key may go), the
// engine's originals the other files wrap (`orig`, `xhrProto`, `origFetch`), the page's `__hybridRequests`
// handle, the switches, each request's plan, and the keyed engine fetch.
// Part of the body of `install(win, parentPageURL)`, which hooks one realm: see core.js for how RequestHooksScript
// joins HooksRuntime/ into one closure. Not a script on its own; it uses from the shared scope:
//   `win`, `parentPageURL` (install's parameters), `config`, and from core.js P, RESERVED, KEY_HEADER, BODY_KEY,
//   strategyFor, includes, isRequestObject, engineSafe, bare. Comes first in `install`: it returns early for a
//   realm that cannot or need not be hooked, before anything is patched.

// Only windows are hooked: `hooksRealm` and the frame getters hand over what the page gives them, and an object
// posing as a window would hand the hooks its own functions to call.
if (!is(P.windowDocument, win)) return;
let href;
try {
  href = win.location.href;
  if (win.__hybridRequests) return;
} catch (e) {
  return; // another origin's realm: its own document-start injection hooks it
}
// Script-made frames (about:blank, srcdoc) share their creator's origin and base URL: hook them as that page.
let pageURL = href;
if (href === 'about:blank' || href === 'about:srcdoc') {
  pageURL = parentPageURL || (win.document && P.baseURI(win.document)) || href;
}
let page;
try {
  page = new P.URL(pageURL);
} catch (e) {
  return;
}
// Which origin this page is and whether its scheme is intercepted decide where the key may go: kept built-ins only.
const pageScheme = P.lower(P.slice(P.urlProtocol(page), 0, -1));
const intercepted = includes(config.schemes, pageScheme);
const originOf = (url) => P.lower(P.urlProtocol(url)) + '//' + P.lower(P.urlHost(url));
const pageOrigin = originOf(page);
const reserved = (path) => pageOrigin + RESERVED + path;
const state = { enabled: true, strategy: intercepted ? strategyFor(pageURL) : 'off' };
const origFetch = win.fetch;
const XHR = win.XMLHttpRequest;
const xhrProto = XHR.prototype;
const orig = {
  open: xhrProto.open,
  send: xhrProto.send,
  abort: xhrProto.abort,
  setRequestHeader: xhrProto.setRequestHeader,
  getResponseHeader: xhrProto.getResponseHeader,
  getAllResponseHeaders: xhrProto.getAllResponseHeaders,
  beacon: win.navigator.sendBeacon,
  submit: win.HTMLFormElement.prototype.submit,
  responseURL: Object.getOwnPropertyDescriptor(xhrProto, 'responseURL'),
};

Object.defineProperty(win, '__hybridRequests', {
  value: Object.freeze({
    get enabled() { return enabled(); },
    get strategy() { return enabled() ? effectiveStrategy() : 'off'; },
    // A page may turn the hooks off for itself (and back on), for code that must see the engine's own XHR and fetch.
    setEnabled(on) { state.enabled = !!on; },
    hooksRealm(child) { install(child, pageURL); },
  }),
});

// Native flips switches for documents loaded later with a small user script that sets this global (the
// last one wins); the scheme handler enforces them whatever a page does.
function switches() {
  const latest = win.__hybridRequestSwitches;
  return latest && typeof latest === 'object' ? latest : config.switches;
}

function enabled() {
  if (!state.enabled || switches().enabled === false) return false;
  const degraded = switches().degraded;
  return !(Array.isArray(degraded) && degraded.some((prefix) => pageURL.startsWith(prefix)));
}

// Each API can be switched off on its own (a remote configuration's hook switches).
function apiEnabled(api) {
  const apis = switches().apis;
  return !(apis && apis[api] === false);
}

// The body channel's URL, or null: none configured, one that stopped (native lists it in the switches), or one that
// did not answer (see `channelLost`).
function channelURL() {
  if (!config.channel || channelLost) return null;
  const closed = switches().closedChannels;
  if (closed && includes(closed, config.channel)) {
    channelLost = true;
    return null;
  }
  return config.channel;
}

function effectiveStrategy() {
  if (state.strategy === 'fullProxy' && switches().proxyEnabled === false) return 'bodyByID';
  return state.strategy;
}

// What to do with a request `api` makes to `url`: null (engine as is), 'store' or 'proxy'.
function planFor(url, api) {
  if (!intercepted || !enabled() || !apiEnabled(api)) return null;
  let target;
  try {
    target = new URL(url, win.document.baseURI);
  } catch (e) {
    return null;
  }
  if (target.pathname.startsWith(RESERVED) && originOf(target) === pageOrigin) return null;
  const scheme = target.protocol.slice(0, -1).toLowerCase();
  const strategy = effectiveStrategy();
  if (strategy === 'fullProxy' && (scheme === 'http' || scheme === 'https' || config.schemes.includes(scheme))) {
    return { mode: 'proxy', url: target.href };
  }
  if (strategy !== 'off' && originOf(target) === pageOrigin) return { mode: 'store', url: target.href };
  return null;
}

// `url` (anything a page passed) as the absolute URL the engine would request, or null when it is none: turned
// into a string once, so whatever page code that runs, runs here, then resolved with kept built-ins. A keyed
// request goes to this string, never to the page's value: an object could name another URL each time it is read.
function resolved(url) {
  try {
    return P.urlHref(new P.URL(P.String(url), P.baseURI(win.document)));
  } catch (e) {
    return null;
  }
}

// Whether a body sent to `href` (an absolute URL from `resolved`, or a Request's) may get the key: a request to
// this page's own origin on the custom scheme.
function vouches(href) {
  if (!intercepted || href === null) return false;
  try {
    return originOf(new P.URL(href)) === pageOrigin;
  } catch (e) {
    return false;
  }
}

// `headers` (anything Headers takes) with the body key added, as a record without a prototype: the engine
// reads a Headers object or an array through their iterators, which a page can replace to read the key.
function keyed(headers) {
  const record = P.create(null);
  P.headersForEach(new P.Headers(headers || undefined), (value, name) => { record[name] = value; });
  record[KEY_HEADER] = BODY_KEY;
  return record;
}

// The one way a keyed fetch leaves the hooks: `init` is a record they made (see `bare` in core.js), its body null
// or one `engineSafe` gave (to the page's own origin), or a Blob to the loopback body channel (never the custom
// scheme: native reads those bytes off a socket), its headers `keyed(...)`; the engine's own fetch is called
// through the kept function.
const keyedFetch = (url, init) => P.fetch(win, url, init);

// The engine's own fetch for a body the hooks do not carry: an engine-safe body (or none) to this page's origin
// gets the key (native reads it); any other body goes as it is (native refuses it without reading it).
function engineFetch(self, input, init, kind, body) {
  const isRequest = isRequestObject(input);
  // A Request's URL cannot change; anything else is read once, and the keyed request goes to what was read.
  const target = isRequest ? P.requestURL(input) : resolved(input);
  if (!vouches(target)) return origFetch.call(self, input, init);
  const safe = engineSafe(kind, body);
  if (safe === undefined) return origFetch.call(self, input, init);
  const base = init && init.headers !== undefined ? init.headers : isRequest ? input.headers : undefined;
  // 'same-origin' whatever the page said: it is (the key went only to this origin), and under 'no-cors' the engine
  // drops every header but a few, the key among them, and native then refuses the body.
  return keyedFetch(isRequest ? input : target,
    bare(init, { body: safe, headers: keyed(base), mode: 'same-origin' }));
}
