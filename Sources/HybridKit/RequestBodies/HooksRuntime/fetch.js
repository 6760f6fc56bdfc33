// HybridKit request hooks: fetch (and the hooked fetch sendBeacon uses, `beaconFetch`).
// Part of the body of `install(win, parentPageURL)`, which hooks one realm: see core.js for how RequestHooksScript
// joins HooksRuntime/ into one closure. Not a script on its own; it uses from the shared scope:
//   `win`, `config`; from core.js P, INTERNAL, BODY_HEADER, PROXY_HEADER, isRequestObject, kindOf, needsStore,
//   formHasFiles, ownBytes, bare; from page.js pageURL, planFor, reserved, keyed, keyedFetch, engineFetch,
//   channelURL; from upload.js serialize, upload, discard, descriptorHeader, proxyOverChannel.

// One hooked fetch per API that uses it, so each follows its own switch.
function hookedFetch(api) {
  return function (input, init) {
    const isRequest = isRequestObject(input);
    const plan = planFor(isRequest ? P.requestURL(input) : String(input), api);
    let body = init && 'body' in init ? init.body : undefined;
    let kind = kindOf(body);
    // A null or undefined init body leaves the Request's own body in place (Fetch: only a non-null one replaces
    // it), so 'none' must mean no body at all: a keyed request is read by native.
    if (isRequest && kind === 'none' && P.requestBody(input) !== null) kind = 'request';
    if (!plan || (plan.mode === 'store' && !needsStore(kind, body))) return engineFetch(this, input, init, kind, body);
    return fetchHooked(input, init, plan, body, kind);
  };
}
win.fetch = hookedFetch('fetch');
const beaconFetch = hookedFetch('sendBeacon');

async function fetchHooked(input, init, plan, body, kind) {
  // What the Request constructor checks of a stream body, which the hooks take out before making theirs.
  if (kind === 'stream') {
    if (!init || init.duplex !== 'half') {
      throw new TypeError("HybridKit: a request with a ReadableStream body needs duplex: 'half'");
    }
    if (init.keepalive) throw new TypeError('HybridKit: a keepalive request cannot have a ReadableStream body');
  }
  let request;
  const aside = kind === 'stream' || kind === 'blob' || (kind === 'formdata' && formHasFiles(body));
  if (aside) {
    // The Request constructor's own check, which taking the body out would skip.
    const named = init && init.method !== undefined ? P.upper(P.String(init.method))
      : isRequestObject(input) ? input.method : 'GET';
    if (named === 'GET' || named === 'HEAD') throw new TypeError('HybridKit: a ' + named + ' request cannot have a body');
    // The engine neither streams uploads nor reads back Blob or file-holding FormData bodies: keep it aside.
    const rest = bare(init);
    delete rest.body;
    delete rest.duplex;
    request = new P.Request(input, rest);
  } else {
    request = new P.Request(input, init);
  }
  // As the Request normalised it: the standard methods upper-cased, any other as the page spelt it.
  const method = request.method;
  let blob = null;
  let type = request.headers.get('Content-Type');
  if (method !== 'GET' && method !== 'HEAD') {
    if (aside) {
      const serialized = await serialize(body, kind);
      blob = serialized.blob;
      if (!type) type = serialized.type;
    } else if (P.requestBody(request) !== null) {
      blob = await P.requestBlob(request);
    }
  }
  const signal = request.signal;
  // The proxy reaches any allowed host, but a request the page limited to its own origin goes nowhere else.
  if (plan.mode === 'proxy' && request.mode === 'same-origin' && !sameOrigin(plan.url)) {
    throw new TypeError('HybridKit proxy: a same-origin request to another origin');
  }
  const headers = [];
  request.headers.forEach((value, name) => { if (name !== 'content-type') headers.push([name, value]); });
  if (type) headers.push(['Content-Type', type]);
  let bodyID = null;
  let inline = null;
  // The rest of the upload while the request is out: native code streams the body as it lands (body by id:
  // the tagged request, full proxy: the proxy request).
  let uploading = null;
  // Full proxy sends a body of up to one chunk on the proxy request itself, except a Blob-backed one when the
  // body channel can take it: the engine sends that without the page reading it first.
  const channel = channelURL();
  const storeIt = blob && (plan.mode === 'store' || P.blobSize(blob) > config.chunkBytes || (aside && !!channel));
  if (storeIt && plan.mode === 'proxy' && channel) {
    // One exchange: the request and its body go to the body channel together and the answer comes back on it,
    // instead of a reservation, an upload and a proxy request. Unreachable: the two legs below, unnoticed.
    const answer = await proxyOverChannel(channel, {
      url: plan.url, method, headers, bodyID: null, credentials: request.credentials, redirect: request.redirect,
      firstParty: pageURL,
    }, blob, signal);
    if (answer) return proxiedResponse(answer, request, plan, method);
  }
  if (storeIt) {
    let pending = null;
    const failed = (error) => {
      discard(pending);
      if (signal.aborted) return signal.reason !== undefined ? signal.reason : new win.DOMException('Aborted', 'AbortError');
      return new TypeError('HybridKit: ' + (error && error.message || error));
    };
    // The page's abort frees the body at once: the upload notices it only once its chunk reads are done.
    signal.addEventListener('abort', () => discard(pending), { __proto__: null, once: true });
    let announce;
    const announced = new Promise((resolve) => { announce = resolve; });
    const whole = upload(blob, type, signal, () => {}, (id) => { pending = id; announce(id); });
    try {
      bodyID = await Promise.race([announced, whole]);
    } catch (error) {
      throw failed(error);
    }
    uploading = whole.catch((error) => { throw failed(error); });
  } else if (blob) {
    inline = ownBytes(await P.blobBytes(blob), P.blobSize(blob));
  }
  // The request goes out while the upload may still run. The page's abort reaches it through `cut`; so does a
  // failed upload, unless the answer came already (a server may answer before it read the whole body).
  const sendAlongside = async (url, init) => {
    if (!uploading) return keyedFetch(url, bare({ signal }, init));
    const cut = new win.AbortController();
    const forward = () => cut.abort(signal.reason);
    if (signal.aborted) forward();
    else signal.addEventListener('abort', forward, { __proto__: null, once: true });
    let answered = false;
    const sent = keyedFetch(url, bare(init, { signal: cut.signal }))
      .then((answer) => { answered = true; return answer; });
    const uploadFailed = uploading.then(() => new Promise(() => {}), (error) => {
      if (!answered) cut.abort();
      throw error;
    });
    // Either the engine's own rejection of the request (as for any fetch) or the upload's, already turned into
    // the page's error.
    return Promise.race([sent, uploadFailed]);
  };
  if (plan.mode === 'store') {
    const sent = new win.Headers();
    headers.forEach(([name, value]) => sent.append(name, value));
    sent.set(BODY_HEADER, bodyID);
    // Native code meets the redirects, so it applies the mode; the engine only sees the outcome.
    if (request.redirect !== 'follow') sent.set('X-Hybrid-Redirect', request.redirect);
    const response = await sendAlongside(request.url, {
      method, headers: sent, credentials: request.credentials, cache: request.cache,
      redirect: request.redirect, referrer: request.referrer, referrerPolicy: request.referrerPolicy,
      // A page's own origin: under 'no-cors' the engine would drop the body's tag (a header it does not list).
      integrity: request.integrity, keepalive: request.keepalive,
      mode: request.mode === 'no-cors' ? 'same-origin' : request.mode,
    });
    if (request.redirect === 'manual' && isRedirect(response)) return opaqueRedirect(response, plan.url);
    return response.headers.has('X-Hybrid-Final-URL') ? finalResponse(response, plan.url, method) : response;
  }
  const descriptor = {
    url: plan.url, method, headers, bodyID, credentials: request.credentials, redirect: request.redirect,
    firstParty: pageURL,
  };
  let response;
  if (uploading) {
    response = await sendAlongside(reserved('proxy'), {
      method: 'POST', headers: keyed({ [PROXY_HEADER]: descriptorHeader(descriptor) }), cache: 'no-store',
    });
  } else {
    response = await keyedFetch(reserved('proxy'), bare({
      method: 'POST', headers: keyed({ [PROXY_HEADER]: descriptorHeader(descriptor) }), body: inline, signal,
      cache: 'no-store',
    }));
  }
  return proxiedResponse(response, request, plan, method);
}

// The page's Response for the proxy's answer (from the scheme's proxy path, or rebuilt from the channel's).
async function proxiedResponse(response, request, plan, method) {
  if (response.headers.get('X-Hybrid-Proxy-Error')) {
    const answer = await response.json().catch(() => ({}));
    throw new TypeError('HybridKit proxy: ' + (answer.error || 'refused'));
  }
  if (request.redirect === 'manual' && isRedirect(response)) return opaqueRedirect(response, plan.url);
  const proxied = finalResponse(response, plan.url, method);
  // A no-cors answer from another origin is opaque to the page, as the engine gives it (the request went).
  if (request.mode === 'no-cors' && proxied.type === 'cors') return opaqueAnswer(proxied, 'opaque');
  return proxied;
}

function isRedirect(response) {
  return [301, 302, 303, 307, 308].includes(response.status) && response.headers.has('Location');
}

// An answer the page may not read, of `type`: status 0, no headers, no body (its body is cancelled). The
// constructor cannot make one; a network-error response has the same shape.
function opaqueAnswer(response, type) {
  if (response.body) response.body.cancel().catch(() => {});
  const opaque = win.Response.error();
  Object.defineProperty(opaque, 'type', { value: type });
  return opaque;
}

// Fetch hides a redirect the page chose not to follow: an opaque-redirect response that names the request's URL.
function opaqueRedirect(response, requestURL) {
  const opaque = opaqueAnswer(response, 'opaqueredirect');
  Object.defineProperty(opaque, 'url', { value: requestURL });
  return opaque;
}

// The response as the page must see it when native code performed the request or followed its redirects:
// the final URL and `redirected` from the internal headers, which are hidden.
// Its type is the one the engine gives a network answer by where it came from: 'basic' from this page's origin,
// 'cors' from another (a constructed Response reads 'default').
function finalResponse(response, requestURL, method) {
  const finalURL = decodeURIComponent(response.headers.get('X-Hybrid-Final-URL') || '') || requestURL;
  const redirected = response.headers.get('X-Hybrid-Redirected') === '1';
  const visible = new win.Headers();
  response.headers.forEach((value, name) => { if (!INTERNAL.test(name)) visible.append(name, value); });
  const type = sameOrigin(finalURL) ? 'basic' : 'cors';
  return nativeResponse(win.Response, Object.defineProperty, response.body, {
    status: response.status, statusText: response.statusText, headers: visible, url: finalURL, redirected, method,
    type,
  });
}

function sameOrigin(href) {
  try {
    return originOf(new P.URL(href)) === pageOrigin;
  } catch (e) {
    return false;
  }
}
