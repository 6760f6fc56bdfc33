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
(function (config) {
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
    slice: uncurry(String.prototype.slice),
    startsWith: uncurry(String.prototype.startsWith),
    urlProtocol: getterOf(URL.prototype, 'protocol'),
    urlHost: getterOf(URL.prototype, 'host'),
    urlHref: getterOf(URL.prototype, 'href'),
    baseURI: getterOf(Node.prototype, 'baseURI'),
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

  function install(win, parentPageURL) {
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

    // Whether a body sent to `url` may get the key: a request to this page's own origin on the custom scheme.
    // `url` may be anything a page passed; it is turned into a string once, then only kept built-ins run.
    function vouches(url) {
      if (!intercepted) return false;
      try {
        return originOf(new P.URL(P.String(url), P.baseURI(win.document))) === pageOrigin;
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

    // The one way a keyed fetch leaves the hooks: `init` is a record they made (see `bare`), its body null or one
    // `engineSafe` gave, its headers `keyed(...)`; the engine's own fetch is called through the kept function.
    const keyedFetch = (url, init) => P.fetch(win, url, init);

    // The engine's own fetch for a body the hooks do not carry: an engine-safe body (or none) to this page's origin
    // gets the key (native reads it); any other body goes as it is (native refuses it without reading it).
    function engineFetch(self, input, init, kind, body) {
      const isRequest = isRequestObject(input);
      if (!vouches(isRequest ? P.requestURL(input) : input)) return origFetch.call(self, input, init);
      const safe = engineSafe(kind, body);
      if (safe === undefined) return origFetch.call(self, input, init);
      const base = init && init.headers !== undefined ? init.headers : isRequest ? input.headers : undefined;
      return keyedFetch(input, bare(init, { body: safe, headers: keyed(base) }));
    }

    // The bytes and default Content-Type the engine itself would send for `body` (the engine serialises
    // FormData, so multipart boundaries match the Content-Type).
    async function serialize(body, kind) {
      if (kind === 'none') return { blob: null, type: null };
      if (kind === 'blob') return { blob: body, type: body.type || null };
      if (kind === 'stream') {
        const parts = [];
        const reader = body.getReader();
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          parts.push(typeof value === 'string' ? value : new Uint8Array(value.buffer || value, value.byteOffset || 0, value.byteLength));
        }
        return { blob: new win.Blob(parts), type: null };
      }
      if (kind === 'document') {
        const text = new win.XMLSerializer().serializeToString(body);
        const html = tagOf(body) === '[object HTMLDocument]';
        return { blob: new win.Blob([text]), type: html ? 'text/html;charset=UTF-8' : 'application/xml;charset=UTF-8' };
      }
      if (kind === 'formdata') return multipart(body);
      if (kind === 'other') body = String(body);
      const request = new win.Request(pageURL, { method: 'POST', body });
      return { blob: await request.blob(), type: request.headers.get('Content-Type') };
    }

    // multipart/form-data as the engine writes it (WebKit cannot hand back a FormData body holding files as a
    // Blob): parts reference the Files, so nothing is copied until the upload reads a chunk.
    function multipart(form) {
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
      const random = new Uint8Array(16);
      win.crypto.getRandomValues(random);
      const boundary = '----WebKitFormBoundary' + Array.from(random, (b) => alphabet[b % alphabet.length]).join('');
      const quote = (text) => text.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
      const parts = [];
      for (const [name, value] of form) {
        let head = '--' + boundary + '\r\nContent-Disposition: form-data; name="' + quote(name) + '"';
        if (typeof value === 'string') {
          parts.push(head + '\r\n\r\n', value, '\r\n');
        } else {
          head += '; filename="' + quote(value.name) + '"\r\nContent-Type: ' + (value.type || 'application/octet-stream');
          parts.push(head + '\r\n\r\n', value, '\r\n');
        }
      }
      parts.push('--' + boundary + '--\r\n');
      return { blob: new win.Blob(parts), type: 'multipart/form-data; boundary=' + boundary };
    }

    function progress(target, type, loaded, total) {
      if (!target) return;
      target.dispatchEvent(new win.ProgressEvent(type, { lengthComputable: total > 0, loaded, total }));
    }

    // Uploads `blob` in chunks; returns the body id. The first chunk creates the body and names its id (`onID(id)`
    // right then, before the rest is up); the others go up to `config.uploadsInFlight` at a time, each at its
    // offset (the store takes them in any order). `onProgress(loaded, total)` as chunks complete; `loaded` grows.
    async function upload(blob, type, signal, onProgress, onID) {
      const size = P.blobSize(blob);
      const step = config.chunkBytes;
      // One failed chunk stops the others.
      const stop = new win.AbortController();
      const forward = () => stop.abort(signal.reason);
      if (signal) {
        if (signal.aborted) forward();
        else signal.addEventListener('abort', forward, { once: true });
      }
      const post = async (url, offset, end, headers) => {
        // Bytes the hooks own: `blob` may be the page's, with its methods replaced.
        const bytes = end > offset ? ownBytes(await P.blobBytes(P.blobSlice(blob, offset, end)), end - offset)
          : new P.U8(0);
        const response = await keyedFetch(url, bare({
          method: 'POST', body: bytes, headers: keyed(headers), signal: stop.signal, cache: 'no-store',
        }));
        const answer = await response.json().catch(() => ({}));
        if (!response.ok) throw new HookError(answer.error || 'body upload failed with status ' + response.status);
        return { answer, length: end - offset };
      };
      try {
        // With the body channel the first request only reserves the body (size, type, origin); the bytes follow
        // in one upload the engine makes itself.
        const viaChannel = !!config.channel && size > 0;
        const first = await post(reserved('body?size=' + size), 0, viaChannel ? 0 : Math.min(size, step),
          type ? { [TYPE_HEADER]: type } : {});
        const id = first.answer.id;
        onID(id);
        let loaded = first.length;
        if (loaded > 0) onProgress(loaded, size);
        if (viaChannel) {
          try {
            await sendOverChannel(blob, id, stop.signal, onProgress);
            return id;
          } catch (error) {
            // Unreachable (not listening, suspended app): the same body in slices, as if there were no channel.
            if (!(error instanceof ChannelUnreachable) || stop.signal.aborted) throw error;
          }
        }
        let next = loaded;
        const worker = async () => {
          while (next < size) {
            const offset = next;
            const end = Math.min(size, offset + step);
            next = end;
            const done = await post(reserved('body/' + id + '?offset=' + offset), offset, end, {});
            loaded += done.length;
            onProgress(loaded, size);
          }
        };
        const workers = [];
        for (let i = 0; i < Math.max(1, config.uploadsInFlight || 1); i++) workers.push(worker());
        await Promise.all(workers);
        return id;
      } catch (error) {
        stop.abort();
        throw error;
      } finally {
        if (signal) signal.removeEventListener('abort', forward);
      }
    }

    // Sends the whole `blob` to the body channel with the engine's own XHR: its network process reads the Blob where
    // the bytes are and streams them to native, which stores them as they arrive. The key goes in a header (request
    // headers are invisible to page scripts; a URL is not: resource timing lists it), so does the id. Rejects with
    // ChannelUnreachable when no answer came (refused connection, CORS refusal), with HookError when native refused.
    function sendOverChannel(blob, id, signal, onProgress) {
      return new Promise((resolve, reject) => {
        const xhr = new P.XHR();
        // One URL for every body, so the engine keeps the CORS preflight's answer instead of asking each time.
        P.open(xhr, 'POST', config.channel + '/body');
        P.setRequestHeader(xhr, KEY_HEADER, BODY_KEY);
        P.setRequestHeader(xhr, BODY_HEADER, id);
        const abort = () => P.abort(xhr);
        if (P.aborted(signal)) return reject(signal.reason);
        P.listen(signal, 'abort', abort, { once: true });
        const size = P.blobSize(blob);
        P.listen(P.upload(xhr), 'progress', (event) => { if (event.loaded > 0) onProgress(event.loaded, size); });
        P.listen(xhr, 'loadend', () => {
          P.unlisten(signal, 'abort', abort);
          const status = P.status(xhr);
          if (status === 200) return resolve();
          if (status === 0) return reject(P.aborted(signal) ? signal.reason : new ChannelUnreachable());
          let answer = {};
          try { answer = P.parseJSON(P.responseText(xhr)); } catch (e) { /* no JSON: the status says it */ }
          reject(new HookError(answer.error || 'body upload failed with status ' + status));
        });
        P.send(xhr, blob);
      });
    }

    function discard(id) {
      // Keyed: native refuses a DELETE without the key unread, like any request that may carry a body.
      if (id) {
        keyedFetch(reserved('body/' + id), bare({ method: 'DELETE', headers: keyed(), cache: 'no-store' }))
          .catch(() => {});
      }
    }

    function descriptorHeader(descriptor) {
      return encodeURIComponent(JSON.stringify(descriptor));
    }

    // ---- XMLHttpRequest ----
    const xhrState = new WeakMap();

    function override(xhr, name, getter) {
      Object.defineProperty(xhr, name, { get: getter, configurable: true });
    }

    function clearOverrides(xhr) {
      delete xhr.readyState;
      delete xhr.responseURL;
    }

    xhrProto.open = function (method, url) {
      clearOverrides(this);
      const async = arguments.length < 3 || !!arguments[2];
      const plan = planFor(url, 'xhr');
      const st = { method: String(method).toUpperCase(), url: String(url), async, headers: [], plan, phase: 'opened' };
      const previous = xhrState.get(this);
      if (previous) clearTimeout(previous.timer);
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
        const args = Array.prototype.slice.call(arguments);
        args[0] = 'POST';
        args[1] = reserved('proxy');
        const result = orig.open.apply(this, args);
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
      return orig.open.apply(this, arguments);
    };

    xhrProto.setRequestHeader = function (name, value) {
      const st = xhrState.get(this);
      if (st) st.headers.push([String(name), String(value)]);
      // Proxied requests carry the page's headers in the descriptor, not on the request to the proxy path.
      if (st && st.plan && st.plan.mode === 'proxy') {
        if (this.readyState !== 1) return orig.setRequestHeader.apply(this, arguments); // throws as the engine does
        return undefined;
      }
      return orig.setRequestHeader.apply(this, arguments);
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
    // KEY_HEADER and `engineSafe`); any other body goes as it is, and native refuses it without reading it.
    function sendKeyedIfVouched(xhr, st, body) {
      if (st.method === 'GET' || st.method === 'HEAD' || !vouches(st.url)) return P.send(xhr, body);
      const safe = engineSafe(kindOf(body), body);
      if (safe === undefined) return P.send(xhr, body);
      P.setRequestHeader(xhr, KEY_HEADER, BODY_KEY);
      return P.send(xhr, safe);
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
      P.setRequestHeader(xhr, PROXY_HEADER, descriptorHeader(descriptor));
      P.setRequestHeader(xhr, KEY_HEADER, BODY_KEY);
      st.phase = 'sent';
      return P.send(xhr, safe);
    }

    // Timeouts of hooked requests are kept here: they must cover the upload, and WebKit does not time out
    // requests to a custom scheme at all. The timer runs from send(), as the spec says.
    const timeoutDescriptor = Object.getOwnPropertyDescriptor(xhrProto, 'timeout');
    if (timeoutDescriptor && timeoutDescriptor.set) {
      Object.defineProperty(xhrProto, 'timeout', {
        configurable: true,
        enumerable: timeoutDescriptor.enumerable,
        get() { return timeoutDescriptor.get.call(this); },
        set(value) {
          timeoutDescriptor.set.call(this, value);
          const st = xhrState.get(this);
          if (st && (st.phase === 'uploading' || st.phase === 'sent')) startTimer(this, st);
        },
      });
    }

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

    // ---- fetch ----
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
      let request;
      const aside = kind === 'stream' || kind === 'blob' || (kind === 'formdata' && formHasFiles(body));
      if (aside) {
        // The engine neither streams uploads nor reads back Blob or file-holding FormData bodies: keep it aside.
        const rest = bare(init);
        delete rest.body;
        delete rest.duplex;
        request = new P.Request(input, rest);
      } else {
        request = new P.Request(input, init);
      }
      const method = request.method.toUpperCase();
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
      const storeIt = blob && (plan.mode === 'store' || P.blobSize(blob) > config.chunkBytes || (aside && !!config.channel));
      if (storeIt) {
        let pending = null;
        const failed = (error) => {
          discard(pending);
          if (signal.aborted) return signal.reason !== undefined ? signal.reason : new win.DOMException('Aborted', 'AbortError');
          return new TypeError('HybridKit: ' + (error && error.message || error));
        };
        // The page's abort frees the body at once: the upload notices it only once its chunk reads are done.
        signal.addEventListener('abort', () => discard(pending), { once: true });
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
        else signal.addEventListener('abort', forward, { once: true });
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
          integrity: request.integrity, keepalive: request.keepalive, mode: request.mode,
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
      if (response.headers.get('X-Hybrid-Proxy-Error')) {
        const answer = await response.json().catch(() => ({}));
        throw new TypeError('HybridKit proxy: ' + (answer.error || 'refused'));
      }
      if (request.redirect === 'manual' && isRedirect(response)) return opaqueRedirect(response, plan.url);
      return finalResponse(response, plan.url, method);
    }

    function isRedirect(response) {
      return [301, 302, 303, 307, 308].includes(response.status) && response.headers.has('Location');
    }

    // Fetch hides a redirect the page chose not to follow: an opaque-redirect response (status 0, no headers, no
    // body). The constructor cannot make one; a network-error response has the same shape.
    function opaqueRedirect(response, requestURL) {
      if (response.body) response.body.cancel().catch(() => {});
      const opaque = win.Response.error();
      Object.defineProperty(opaque, 'type', { value: 'opaqueredirect' });
      Object.defineProperty(opaque, 'url', { value: requestURL });
      return opaque;
    }

    // The response as the page must see it when native code performed the request or followed its redirects:
    // the final URL and `redirected` from the internal headers, which are hidden.
    function finalResponse(response, requestURL, method) {
      const finalURL = decodeURIComponent(response.headers.get('X-Hybrid-Final-URL') || '') || requestURL;
      const redirected = response.headers.get('X-Hybrid-Redirected') === '1';
      const visible = new win.Headers();
      response.headers.forEach((value, name) => { if (!INTERNAL.test(name)) visible.append(name, value); });
      const nullBody = [101, 103, 204, 205, 304].includes(response.status) || method === 'HEAD';
      const result = new win.Response(nullBody ? null : response.body, {
        status: response.status, statusText: response.statusText, headers: visible,
      });
      Object.defineProperty(result, 'url', { value: finalURL });
      Object.defineProperty(result, 'redirected', { value: redirected });
      return result;
    }

    // ---- navigator.sendBeacon ----
    if (orig.beacon) {
      win.navigator.sendBeacon = function (url, data) {
        const plan = planFor(url, 'sendBeacon');
        const kind = kindOf(data);
        if (!plan || (plan.mode === 'store' && !needsStore(kind, data))) {
          if (kind === 'none' || !vouches(url)) return orig.beacon.apply(this, arguments);
          const safe = engineSafe(kind, data);
          if (safe === undefined) return orig.beacon.apply(this, arguments);
          const size = typeof safe === 'string' ? new win.TextEncoder().encode(safe).length
            : kind === 'buffer' || kind === 'view' ? P.arrayLength(safe) : 0;
          if (size > 65536) return false; // the beacon quota, as the engine applies it
          // An engine-safe beacon to this page's origin: the same request, as a keepalive fetch with the key.
          keyedFetch(url, bare({ method: 'POST', body: safe, keepalive: true, credentials: 'include',
            headers: keyed() })).catch(() => {});
          return true;
        }
        if (kind === 'blob' && data.size > 65536) return false; // the beacon quota, as the engine applies it
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

    // ---- POST <form> submission to this page's origin ----
    // Native cannot read a form's body safely (see KEY_HEADER), so every POST form to this page's own origin on
    // the custom scheme uploads its body first, serialised as the engine would for its enctype, and an empty
    // carrier form sends the request tagged with the body's id. Whatever the hook switches say: without this the
    // form would lose its body.
    function submitHooked(form, submitter) {
      const method = (submitter && submitter.getAttribute('formmethod')) || form.method;
      if (String(method).toLowerCase() !== 'post') return false;
      const action = submitter && submitter.hasAttribute('formaction') ? submitter.formAction : form.action;
      if (!vouches(action)) return false;
      const data = submitter ? new win.FormData(form, submitter) : new win.FormData(form);
      const enctype = ((submitter && submitter.getAttribute('formenctype')) || form.enctype).toLowerCase();
      (async () => {
        const { blob, type } = await formBody(data, enctype);
        const id = await upload(blob, type, undefined, () => {}, () => {});
        const target = new URL(action, win.document.baseURI);
        target.searchParams.append('__hybrid_body', id);
        const carrier = win.document.createElement('form');
        carrier.method = 'post';
        carrier.action = target.href;
        carrier.target = (submitter && submitter.getAttribute('formtarget')) || form.target;
        carrier.style.display = 'none';
        win.document.body.appendChild(carrier);
        orig.submit.call(carrier);
      })().catch((error) => win.console.error('HybridKit: form submission failed: ' + (error && error.message || error)));
      return true;
    }

    // A form's body as the engine encodes it for `enctype` (files by name outside multipart, as the engine does).
    async function formBody(data, enctype) {
      if (enctype === 'multipart/form-data') return serialize(data, 'formdata');
      const entries = [...data].map(([name, value]) => [name, typeof value === 'string' ? value : value.name]);
      if (enctype === 'text/plain') {
        const text = entries.map(([name, value]) => name + '=' + value + '\r\n').join('');
        return { blob: new win.Blob([text]), type: 'text/plain' };
      }
      return { blob: new win.Blob([new win.URLSearchParams(entries).toString()]),
        type: 'application/x-www-form-urlencoded' };
    }

    win.addEventListener('submit', (event) => {
      if (event.defaultPrevented) return;
      if (submitHooked(event.target, event.submitter)) event.preventDefault();
    });

    win.HTMLFormElement.prototype.submit = function () {
      if (!submitHooked(this, null)) return orig.submit.apply(this, arguments);
      return undefined;
    };

    // ---- realms made by this page (same-origin iframes, about:blank included) ----
    for (const Element of [win.HTMLIFrameElement, win.HTMLFrameElement, win.HTMLObjectElement]) {
      if (!Element) continue;
      for (const name of ['contentWindow', 'contentDocument']) {
        const descriptor = Object.getOwnPropertyDescriptor(Element.prototype, name);
        if (!descriptor || !descriptor.get) continue;
        Object.defineProperty(Element.prototype, name, {
          configurable: true,
          enumerable: descriptor.enumerable,
          get() {
            const value = descriptor.get.call(this);
            const child = name === 'contentWindow' ? value : value && value.defaultView;
            if (child) install(child, pageURL);
            return value;
          },
        });
      }
    }
    const openWindow = win.open;
    win.open = function () {
      const child = openWindow.apply(this, arguments);
      if (child) install(child, pageURL);
      return child;
    };
  }

  install(window, null);
})(__HYBRID_REQUEST_CONFIG__);
