// HybridKit request hooks: XMLHttpRequest (open, setRequestHeader, send, abort, the response header getters and
// timeout, patched on this realm's prototype).
// Part of the body of `install(win, parentPageURL)`, which hooks one realm: see core.js for how RequestHooksScript
// joins HooksRuntime/ into one closure. Not a script on its own; it uses from the shared scope:
//   `win`; from core.js P, INTERNAL, BODY_HEADER, KEY_HEADER, PROXY_HEADER, BODY_KEY, HookError, tagOf, kindOf,
//   needsStore, engineSafe; from page.js pageURL, xhrProto, orig, planFor, resolved, vouches, reserved;
//   from upload.js serialize, upload, discard, descriptorHeader.

const xhrState = new WeakMap();

function progress(target, type, loaded, total) {
  if (!target) return;
  target.dispatchEvent(new win.ProgressEvent(type, { __proto__: null, lengthComputable: total > 0, loaded, total }));
}

function override(xhr, name, getter) {
  Object.defineProperty(xhr, name, { get: getter, configurable: true });
}

function clearOverrides(xhr) {
  delete xhr.readyState;
  delete xhr.responseURL;
}

xhrProto.open = function (method, url) {
  // Checked first: an open() the engine refuses changes nothing.
  const normalized = normalizedMethod(P.String(method));
  clearOverrides(this);
  const async = arguments.length < 3 || !!arguments[2];
  // Each argument is read once, here (an object could answer differently each time): the plan, the key's check
  // and the engine all see these strings.
  const href = P.String(url);
  const user = arguments.length > 3 && arguments[3] != null ? P.String(arguments[3]) : null;
  const password = arguments.length > 4 && arguments[4] != null ? P.String(arguments[4]) : null;
  const plan = planFor(href, 'xhr');
  const st = {
    method: normalized, url: href, target: resolved(href), async, user, password, headers: [], plan,
    phase: 'opened',
  };
  const previous = xhrState.get(this);
  if (previous) {
    clearTimeout(previous.timer);
    // open() ends the request before it (no events): an upload still running must not send its body on this one.
    if (previous.phase === 'uploading') {
      previous.phase = 'aborted';
      previous.controller.abort();
      discard(previous.bodyID);
    }
  }
  st.guarded = previous ? previous.guarded : false;
  xhrState.set(this, st);
  if (!st.guarded) {
    st.guarded = true;
    // The engine fires its own loadstart when the real request goes out after an upload; the page already
    // had one, when it called send().
    this.addEventListener('loadstart', (event) => {
      const current = xhrState.get(this);
      if (current && current.swallowLoadstart) {
        current.swallowLoadstart = false;
        event.stopImmediatePropagation();
      }
    }, true);
    for (const target of [this, this.upload]) {
      target.addEventListener('abort', (event) => {
        const current = xhrState.get(this);
        if (current && current.renameAbort) {
          event.stopImmediatePropagation();
          progress(target, 'timeout', event.loaded, event.total);
        }
      }, true);
    }
    this.addEventListener('loadend', () => {
      const current = xhrState.get(this);
      if (current) clearTimeout(current.timer);
    }, true);
    // The engine fires one more upload progress event, before HEADERS_RECEIVED, for each redirect that re-sends
    // the body (307, 308); native code followed the redirects and says how many did.
    this.upload.addEventListener('load', (event) => {
      const current = xhrState.get(this);
      if (current) current.uploadTotal = event.total;
    }, true);
    this.addEventListener('readystatechange', () => {
      const current = xhrState.get(this);
      if (!current || !current.plan || this.readyState !== 2 || current.resendsReplayed) return;
      current.resendsReplayed = true;
      const resends = Number(orig.getResponseHeader.call(this, 'X-Hybrid-Body-Resends')) || 0;
      const total = current.uploadTotal || 0;
      for (let i = 0; i < resends; i++) progress(this.upload, 'progress', total, total);
    }, true);
  }
  if (plan && plan.mode === 'proxy') {
    const result = openAs(this, st, 'POST', reserved('proxy'));
    const xhr = this;
    override(this, 'responseURL', () => {
      const value = orig.getResponseHeader.call(xhr, 'X-Hybrid-Final-URL');
      return value ? decodeURIComponent(value) : '';
    });
    return result;
  }
  if (plan && plan.mode === 'store') {
    // Native code follows redirects of requests it re-attached a body to and names the final URL.
    const xhr = this;
    override(this, 'responseURL', () => {
      const value = orig.getResponseHeader.call(xhr, 'X-Hybrid-Final-URL');
      return value ? decodeURIComponent(value) : orig.responseURL.get.call(xhr);
    });
  }
  return openAs(this, st, normalized, href);
};

// `name` as the engine's open() would send it, or the engine's exception: a proxied request is opened to the proxy
// path as a POST, so the engine never sees the page's method, and these checks are the only ones it gets.
function normalizedMethod(name) {
  if (!P.test(TOKEN, name)) {
    throw new win.DOMException("'" + name + "' is not a valid HTTP method.", 'SyntaxError');
  }
  const upper = P.upper(name);
  if (includes(FORBIDDEN_METHODS, upper)) {
    throw new win.DOMException("'" + name + "' HTTP method is unsupported.", 'SecurityError');
  }
  return includes(NORMALIZED_METHODS, upper) ? upper : name;
}

// Opens `xhr` with the engine's own open (kept: a page may replace this realm's), with the async flag and
// credentials the page's open() gave.
function openAs(xhr, st, method, url) {
  return P.open(xhr, method, url, st.async, st.user, st.password);
}

xhrProto.setRequestHeader = function (name, value) {
  const st = xhrState.get(this);
  const header = [P.String(name), P.String(value)];
  // While a hooked request uploads, or once its upload ended early, the engine's request is still OPENED and would
  // take a header the engine refuses once a request was sent: the hooks refuse it (read from their state, not
  // readyState, which shows the page UNSENT or DONE then). Once the engine's request goes ('sent'), the engine
  // decides; code the hooks' send calls into may still add headers right before it (another document-start
  // wrapper of send, say).
  if (st && st.plan && !inFlightAtEngine(st) && st.phase !== 'opened') throw invalidState('setRequestHeader');
  // The engine checks the name and value and ignores a forbidden name; on a proxied request it does so on the request
  // to the proxy path, which send() opens again (dropping it) before it carries the descriptor.
  P.setRequestHeader(this, header[0], header[1]);
  // Proxied requests carry the page's headers in the descriptor, not on the request to the proxy path.
  if (st && st.plan && st.plan.mode === 'proxy' && this.readyState === 1) {
    st.headers[st.headers.length] = header;
    return undefined;
  }
  // Kept once the engine took it: a keyed send opens the request again and puts these back.
  if (st) st.headers[st.headers.length] = header;
  return undefined;
};

xhrProto.getResponseHeader = function (name) {
  if (INTERNAL.test(String(name))) return null;
  return orig.getResponseHeader.apply(this, arguments);
};

xhrProto.getAllResponseHeaders = function () {
  const all = orig.getAllResponseHeaders.apply(this, arguments);
  return all.split('\r\n').filter((line) => !INTERNAL.test(line)).join('\r\n');
};

// Every hooked XHR with a body uploads it first, even bodies the engine would carry intact: the engine fires
// no upload progress for requests to a custom scheme, and the upload is what gives the page those events.
xhrProto.send = function (body) {
  const st = xhrState.get(this);
  // A hooked request sent once (its upload may still run), aborted or failed: the engine's request may not have
  // its send flag set yet, so the engine would send it again.
  if (st && st.plan && st.phase !== 'opened') throw invalidState('send');
  if (!st || !st.plan || st.phase !== 'opened' || this.readyState !== 1) {
    if (st && st.phase === 'opened' && this.readyState === 1) return sendKeyedIfVouched(this, st, body);
    return orig.send.apply(this, arguments);
  }
  let kind = kindOf(body);
  if (st.method === 'GET' || st.method === 'HEAD') {
    body = null;
    kind = 'none';
  }
  st.started = Date.now();
  const authorType = st.headers.find((h) => h[0].toLowerCase() === 'content-type');
  if (kind === 'none' || !st.async) {
    if (needsStore(kind, body)) {
      throw new win.DOMException(
        'HybridKit: a synchronous XMLHttpRequest cannot send a ' + kind + ' body to an intercepted page; ' +
        'make the request asynchronous', 'InvalidAccessError');
    }
    st.phase = 'sent';
    if (st.plan.mode === 'store') return sendKeyedIfVouched(this, st, body);
    // Engine-safe bodies ride on the proxy request itself, so synchronous requests keep working.
    const type = authorType ? authorType[1] : defaultTypeSync(body, kind);
    return sendProxied(this, st, kind === 'none' ? null : body, null, type);
  }
  st.phase = 'uploading';
  st.controller = new win.AbortController();
  const xhr = this;
  // send() fires these before it returns, so an abort() right after it sees them first, as in the engine.
  let total = kind === 'blob' ? body.size : kind === 'buffer' || kind === 'view' ? body.byteLength : 0;
  progress(xhr, 'loadstart', 0, 0);
  progress(xhr.upload, 'loadstart', 0, total);
  st.swallowLoadstart = true;
  (async () => {
    try {
      const { blob, type } = await serialize(body, kind);
      total = P.blobSize(blob);
      const sentType = authorType ? authorType[1] : type;
      const id = await upload(blob, sentType, st.controller.signal,
        (loaded) => { if (loaded < total) progress(xhr.upload, 'progress', loaded, total); },
        (newID) => { st.bodyID = newID; });
      if (st.phase !== 'uploading') return discard(id);
      progress(xhr.upload, 'progress', total, total);
      progress(xhr.upload, 'load', total, total);
      progress(xhr.upload, 'loadend', total, total);
      st.phase = 'sent';
      if (st.plan.mode === 'proxy') return sendProxied(xhr, st, null, id, sentType);
      P.setRequestHeader(xhr, BODY_HEADER, id);
      if (!authorType && sentType) P.setRequestHeader(xhr, 'Content-Type', sentType);
      P.send(xhr, null);
    } catch (error) {
      if (st.phase !== 'uploading') return;
      st.phase = 'failed';
      clearTimeout(st.timer);
      discard(st.bodyID);
      if (error instanceof HookError) win.console.error('HybridKit: ' + error.message);
      finishEarly(xhr, 'error', total, 4);
    }
  })();
  return undefined;
};

// Sends `body` with the engine's XHR: to this page's origin, an engine-safe body goes with the key (see
// KEY_HEADER and `engineSafe` in core.js); any other body goes as it is, and native refuses it without reading it.
function sendKeyedIfVouched(xhr, st, body) {
  // A second send() meets the engine's send flag (and its exception), not a second keyed open below.
  st.phase = 'sent';
  if (st.method === 'GET' || st.method === 'HEAD' || !vouches(st.target)) return P.send(xhr, body);
  const safe = engineSafe(kindOf(body), body);
  if (safe === undefined) return P.send(xhr, body);
  // engineSafe may have run the page's code (a body turned into a string), and that code may have opened the
  // request again, elsewhere, with an open() the hooks never see. So the request is opened here once more, to the
  // URL vouched for, its headers put back, and sent with the key: no page code runs between this open and the send.
  openAs(xhr, st, st.method, st.target);
  for (let i = 0; i < st.headers.length; i++) P.setRequestHeader(xhr, st.headers[i][0], st.headers[i][1]);
  P.setRequestHeader(xhr, KEY_HEADER, BODY_KEY);
  return P.send(xhr, safe);
}

// Whether the engine's own request carries the hooked one now (it then applies its own state checks).
function inFlightAtEngine(st) {
  return st.phase === 'sent';
}

function invalidState(method) {
  return new win.DOMException("Failed to execute '" + method + "' on 'XMLHttpRequest': the object's state must be " +
    'OPENED and its request not yet sent.', 'InvalidStateError');
}

// The events the engine fires when a request ends before its response (abort, error, timeout), for a
// request still in its upload phase. readyState is DONE for the events, `after` once they are out.
function finishEarly(xhr, type, total, after) {
  let readyState = 4;
  override(xhr, 'readyState', () => readyState);
  xhr.dispatchEvent(new win.Event('readystatechange'));
  progress(xhr.upload, type, 0, total);
  progress(xhr.upload, 'loadend', 0, total);
  progress(xhr, type, 0, 0);
  progress(xhr, 'loadend', 0, 0);
  readyState = after;
}

xhrProto.abort = function () {
  const st = xhrState.get(this);
  // The engine's request ends UNSENT: nothing may be sent again on it before open().
  if (st && st.phase === 'sent') st.phase = 'aborted';
  if (st && st.phase === 'uploading') {
    st.phase = 'aborted';
    clearTimeout(st.timer);
    st.controller.abort();
    discard(st.bodyID);
    finishEarly(this, 'abort', 0, 0);
    return undefined;
  }
  return orig.abort.apply(this, arguments);
};

function defaultTypeSync(body, kind) {
  if (kind === 'string' || kind === 'other') return 'text/plain;charset=UTF-8';
  if (kind === 'params') return 'application/x-www-form-urlencoded;charset=UTF-8';
  if (kind === 'document') {
    return tagOf(body) === '[object HTMLDocument]' ? 'text/html;charset=UTF-8' : 'application/xml;charset=UTF-8';
  }
  return null; // buffers carry none; string-only FormData: the proxy request's own multipart type is used
}

function sendProxied(xhr, st, inlineBody, bodyID, type) {
  const headers = st.headers.filter((h) => h[0].toLowerCase() !== 'content-type');
  if (type) headers.push(['Content-Type', type]);
  const descriptor = {
    url: st.plan.url, method: st.method, headers, bodyID,
    credentials: xhr.withCredentials ? 'include' : 'same-origin', redirect: 'follow', firstParty: pageURL,
    inlineType: !type && inlineBody !== null,
  };
  // Only bodies `engineSafe` made ride on the keyed proxy request; a caller passes null or such a body.
  const safe = inlineBody === null ? null : engineSafe(kindOf(inlineBody), inlineBody);
  if (safe === undefined) throw new win.DOMException('HybridKit: this body cannot be sent', 'InvalidAccessError');
  const header = descriptorHeader(descriptor);
  // Page code may have run since open() (above, or during an upload) and opened the request elsewhere: opened
  // again to the proxy path, then keyed and sent with nothing of the page's in between.
  openAs(xhr, st, 'POST', reserved('proxy'));
  P.setRequestHeader(xhr, PROXY_HEADER, header);
  P.setRequestHeader(xhr, KEY_HEADER, BODY_KEY);
  st.phase = 'sent';
  return P.send(xhr, safe);
}

// Replaces the setter of the prototype's accessor `name` with `set(xhr, value, engineSet)`, where `engineSet(value)`
// sets it as the engine does; the getter stays the engine's.
function wrapSetter(name, set) {
  const descriptor = Object.getOwnPropertyDescriptor(xhrProto, name);
  if (!descriptor || !descriptor.set) return;
  Object.defineProperty(xhrProto, name, {
    configurable: true,
    enumerable: descriptor.enumerable,
    get() { return descriptor.get.call(this); },
    set(value) { set(this, value, (v) => descriptor.set.call(this, v)); },
  });
}

// Timeouts of hooked requests are kept here: they must cover the upload, and WebKit does not time out
// requests to a custom scheme at all. The timer runs from send(), as the spec says.
wrapSetter('timeout', (xhr, value, engineSet) => {
  engineSet(value);
  const st = xhrState.get(xhr);
  if (st && (st.phase === 'uploading' || st.phase === 'sent')) startTimer(xhr, st);
});

// withCredentials may not change once a request was sent: the engine's own request of a hooked XHR may not be
// sent yet (its upload runs), so the hooks say no for it, as for headers; allowed again once an upload was aborted
// (the request is UNSENT), as readyState shows.
wrapSetter('withCredentials', (xhr, value, engineSet) => {
  const st = xhrState.get(xhr);
  if (st && st.plan && !inFlightAtEngine(st) && st.phase !== 'opened' && st.phase !== 'aborted') {
    throw invalidState('withCredentials');
  }
  engineSet(value);
});

function startTimer(xhr, st) {
  clearTimeout(st.timer);
  const timeout = xhr.timeout;
  if (!st.plan || !st.async || !(timeout > 0)) return;
  st.timer = setTimeout(() => timeOut(xhr, st), Math.max(0, timeout - (Date.now() - st.started)));
}

function timeOut(xhr, st) {
  if (st.phase === 'uploading') {
    st.phase = 'timedout';
    st.controller.abort();
    discard(st.bodyID);
    finishEarly(xhr, 'timeout', 0, 4);
  } else if (st.phase === 'sent' && xhr.readyState !== 4) {
    // The engine's abort() fires the right sequence; its abort events are renamed timeout on the way.
    st.phase = 'timedout';
    st.renameAbort = true;
    orig.abort.call(xhr);
    st.renameAbort = false;
    override(xhr, 'readyState', () => 4);
  }
}

const sendWithTimer = xhrProto.send;
xhrProto.send = function () {
  const result = sendWithTimer.apply(this, arguments);
  const st = xhrState.get(this);
  if (st && (st.phase === 'uploading' || st.phase === 'sent')) startTimer(this, st);
  return result;
};
