// First-screen prefetch, the page side: stamps the main frame's same-origin GET and HEAD requests with this
// view's secret and their credentials mode, so native code answers them from a prefetch when one matches (a
// frame's request, which carries no stamp, never is). `hybridPrefetch` lets the page read what was prefetched
// for it and say when its first screen is shown. Baked per view: __HYBRID_PREFETCH_TOKEN__, __HYBRID_PREFETCH_ORIGIN__.
(() => {
  const token = __HYBRID_PREFETCH_TOKEN__;
  const origin = __HYBRID_PREFETCH_ORIGIN__;
  // Main frame only, and only the site's own pages: a live page at another origin gets nothing.
  if (window.top !== window || location.origin !== origin) return;
  const header = 'X-Hybrid-Prefetch';
  const ownPath = '/__hybrid_prefetch__';
  const sameOrigin = (url) => {
    try {
      return new URL(url, location.href).origin === location.origin;
    } catch (e) {
      return false;
    }
  };
  const safe = (method) => method === 'GET' || method === 'HEAD';
  const originalFetch = window.fetch;
  const stamped = function (input, init) {
    let request;
    try {
      request = new Request(input, init);
    } catch (e) {
      return originalFetch.apply(this, arguments);
    }
    if (!safe(request.method) || request.mode === 'no-cors' || !sameOrigin(request.url)) {
      return originalFetch.apply(this, arguments);
    }
    try {
      request.headers.set(header, token + ' ' + request.credentials);
    } catch (e) {
      return originalFetch.apply(this, arguments);
    }
    return originalFetch.call(this, request);
  };
  window.fetch = stamped;

  const xhr = XMLHttpRequest.prototype;
  const open = xhr.open;
  const send = xhr.send;
  const opened = new WeakMap();
  xhr.open = function (method, url) {
    opened.set(this, { method: String(method).toUpperCase(), url: String(url) });
    return open.apply(this, arguments);
  };
  xhr.send = function () {
    const request = opened.get(this);
    if (request && safe(request.method) && sameOrigin(request.url)) {
      try {
        this.setRequestHeader(header, token + ' ' + (this.withCredentials ? 'include' : 'same-origin'));
      } catch (e) {
        // Not OPENED any more: sent as it is.
      }
    }
    return send.apply(this, arguments);
  };

  const own = (path) =>
    originalFetch(ownPath + path, { headers: { [header]: token + ' same-origin' }, cache: 'no-store' });
  Object.defineProperty(window, 'hybridPrefetch', {
    value: Object.freeze({
      /** What native code prefetched for this page: [{method, url, credentials, state: 'used' | 'waiting'}]. */
      requests: () => own('').then((response) => response.json()),
      /** Marks the first screen as shown, for the host's timing marks. */
      firstScreen: () => own('/first-screen').then(() => undefined),
    }),
  });
})();
