// WebViewJavascriptBridge compatibility, on the same transport as window.hybrid.
// Pages written for WebViewJavascriptBridge run unchanged: `setupWebViewJavascriptBridge(cb)` (the
// `WVJBCallbacks` queue and its `__bridge_loaded__` iframe), the older `WebViewJavascriptBridgeReady` event,
// `bridge.callHandler(name, data?, responseCallback?)`, `bridge.registerHandler(name, handler)` and
// `disableJavscriptAlertBoxSafetyTimeout()`. Native handlers are the methods of the module named by
// config.wvjbModule, under any name (`'ObjC Echo'`); JavaScript handlers are bridge handlers native calls.
//
// Timing matches the real library, which pages depend on: the bridge object does not exist while the page's
// first scripts run, so `setupWebViewJavascriptBridge` queues its callback; the bridge appears once the
// document is parsed, and the queued callbacks run then, asynchronously. (Running them at once, while the
// page's script is still being parsed, runs them before the elements that follow that script exist.)
//
// Part of the bridge runtime's closure: see transport.js for how BridgeRuntimeScript joins BridgeRuntime/. Not a script
// on its own; it uses from the shared scope:
//   `config`; the page's `window.hybrid`, which api.js defined (frozen, so the page cannot replace it).
if (!('WebViewJavascriptBridge' in window)) {
  const wvjb = Object.freeze({
    registerHandler(name, handler) {
      window.hybrid.handle(String(name), (data) => new Promise((resolve) => handler(data, resolve)));
    },
    callHandler(name, data, responseCallback) {
      if (typeof data === 'function' && responseCallback === undefined) {
        responseCallback = data;
        data = null;
      }
      window.hybrid.call(config.wvjbModule, String(name), data === undefined ? null : data).then(
        (response) => { if (typeof responseCallback === 'function') responseCallback(response); },
        (error) => { console.warn(`WebViewJavascriptBridge: ${name} failed: ${error.code}: ${error.message}`); },
      );
    },
    // Present in the original API; alerts never block the bridge here, so there is nothing to disable.
    disableJavscriptAlertBoxSafetyTimeout() {},
  });

  let requested = null; // the page's WVJBCallbacks array, once it sets one

  function inject() {
    const callbacks = Array.isArray(requested) ? requested : [];
    // As the real library leaves it: no queue, the bridge in its place.
    delete window.WVJBCallbacks;
    if ('WebViewJavascriptBridge' in window) return; // the page brought its own
    Object.defineProperty(window, 'WebViewJavascriptBridge', { value: wvjb, writable: false, configurable: false });
    for (const callback of callbacks) {
      if (typeof callback !== 'function') continue;
      try {
        callback(wvjb);
      } catch (e) {
        setTimeout(() => { throw e; }); // report, but let the other callbacks run
      }
    }
    document.dispatchEvent(new Event('WebViewJavascriptBridgeReady'));
  }

  // The page's queue is kept until the bridge appears (its `__bridge_loaded__` iframe, which woke the native
  // side of the real library, is dropped by the navigation policy).
  Object.defineProperty(window, 'WVJBCallbacks', {
    configurable: true,
    enumerable: true,
    get() { return requested === null ? undefined : requested; },
    set(value) { requested = value; },
  });
  // After the document is parsed, so the elements a page's callback looks for exist, and never in the turn
  // of the page's own request.
  if (document.readyState === 'loading') {
    document.addEventListener('DOMContentLoaded', () => setTimeout(inject, 0), { __proto__: null, once: true });
  } else {
    setTimeout(inject, 0);
  }
}
