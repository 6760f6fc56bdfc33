// HybridKit request hooks: navigator.sendBeacon.
// Part of the body of `install(win, parentPageURL)`, which hooks one realm: see core.js for how RequestHooksScript
// joins HooksRuntime/ into one closure. Not a script on its own; it uses from the shared scope:
//   `win`; from core.js P, PROXY_HEADER, is, kindOf, needsStore, engineSafe, forEachEntry, bare, channelLost;
//   from page.js orig, pageURL, planFor, resolved, vouches, reserved, keyed, keyedFetch, channelURL; from upload.js
//   serialize, descriptorHeader, channelProxyRequest; from fetch.js beaconFetch.

// Beacons are what pages send as they leave (`pagehide`, `visibilitychange`): whatever goes out must go out before
// sendBeacon returns, as a keepalive request, since the document's tasks may never run again. Bodies the engine
// carries do; a Blob the hooks must read first (body by id, or full proxy without the body channel) cannot, and a
// page that sends one as it leaves is told so.
const BEACON_QUOTA = 65536; // the engine's keepalive quota
let leaving = false;
win.addEventListener('pagehide', () => { leaving = true; }, true);
win.addEventListener('pageshow', () => { leaving = false; }, true);

// About the bytes a beacon of `data` (of `kind`) sends, for the quota check: exact for text and bytes, the parts'
// contents for a FormData (its multipart framing aside).
function beaconSize(data, kind) {
  const utf8 = (text) => new win.TextEncoder().encode(P.String(text)).length;
  switch (kind) {
    case 'string': case 'other': case 'document': case 'params': return utf8(data);
    case 'buffer': return P.bufferLength(data);
    case 'view': return P.isView(data) && is(P.arrayBuffer, data) ? P.arrayLength(data) : P.dataViewLength(data);
    case 'blob': return P.blobSize(data);
    case 'formdata': {
      let size = 0;
      forEachEntry(data, (name, value) => {
        size += utf8(name) + (typeof value === 'string' ? utf8(value) : P.blobSize(value));
      });
      return size;
    }
    default: return 0;
  }
}

// The Content-Type the engine's sendBeacon gives a body of `kind` (null: none, or the request's own multipart). A
// Document is no body a beacon takes: it goes as its string, as anything else.
function beaconType(kind) {
  if (kind === 'string' || kind === 'other' || kind === 'document') return 'text/plain;charset=UTF-8';
  if (kind === 'params') return 'application/x-www-form-urlencoded;charset=UTF-8';
  return null;
}

// A full-proxy beacon, sent now: the descriptor and an engine-safe body on one keepalive request to the proxy path,
// or a Blob to the body channel in one exchange (the engine reads the Blob itself). False when neither applies.
function proxyBeaconNow(plan, kind, data) {
  const descriptor = {
    url: plan.url, method: 'POST', headers: [], bodyID: null, credentials: 'include', redirect: 'follow',
    firstParty: pageURL,
  };
  const channel = kind === 'blob' ? channelURL() : null;
  if (channel) {
    if (data.type) descriptor.headers.push(['Content-Type', data.type]);
    channelProxyRequest(channel, descriptor, data, { keepalive: true }).catch(() => {
      // Unreachable: the port may be another process's from now on (see `channelLost`). This beacon is lost.
      channelLost = true;
      win.console.error('HybridKit: a beacon was lost: the body channel did not answer');
    });
    return true;
  }
  const safe = engineSafe(kind, data);
  if (safe === undefined) return false;
  const type = beaconType(kind);
  if (type) descriptor.headers.push(['Content-Type', type]);
  else descriptor.inlineType = kind === 'formdata';
  keyedFetch(reserved('proxy'), bare({
    method: 'POST', body: safe, keepalive: true, cache: 'no-store',
    headers: keyed({ [PROXY_HEADER]: descriptorHeader(descriptor) }),
  })).catch(() => {});
  return true;
}

if (orig.beacon) {
  win.navigator.sendBeacon = function (url, data) {
    const plan = planFor(url, 'sendBeacon');
    const kind = kindOf(data);
    // A keepalive request cannot carry a stream: the engine's own sendBeacon throws.
    if (kind === 'stream') throw new TypeError("Failed to execute 'sendBeacon': a ReadableStream body cannot be sent");
    if (!plan || (plan.mode === 'store' && !needsStore(kind, data))) {
      const target = kind === 'none' ? null : resolved(url);
      if (!vouches(target)) return orig.beacon.apply(this, arguments);
      const safe = engineSafe(kind, data);
      if (safe === undefined) return orig.beacon.apply(this, arguments);
      if (beaconSize(data, kind) > BEACON_QUOTA) return false;
      // An engine-safe beacon to this page's origin: the same request, as a keepalive fetch with the key.
      keyedFetch(target, bare({ method: 'POST', body: safe, keepalive: true, credentials: 'include',
        headers: keyed() })).catch(() => {});
      return true;
    }
    if (beaconSize(data, kind) > BEACON_QUOTA) return false;
    if (plan.mode === 'proxy' && proxyBeaconNow(plan, kind, data)) return true;
    if (leaving) {
      win.console.warn('HybridKit: a ' + kind + ' beacon sent as the page leaves must be read before it can go, ' +
        'and may be lost with the page; send a string or bytes, which go at once');
    }
    (async () => {
      const { blob, type } = await serialize(data, kind);
      const init = bare({ method: 'POST', keepalive: true, credentials: 'include' });
      if (blob) {
        init.body = blob;
        if (type) init.headers = { 'Content-Type': type };
      }
      await beaconFetch.call(win, plan.url, init);
    })().catch((error) => win.console.error('HybridKit: beacon failed: ' + (error && error.message || error)));
    return true;
  };
}
