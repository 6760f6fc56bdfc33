// WebViewJavascriptBridge compatibility, on the same transport as window.hybrid.
// Existing H5 code that uses `setupWebViewJavascriptBridge(cb)`, `bridge.callHandler(name, data, cb)` and
// `bridge.registerHandler(name, fn)` runs unchanged. Native handlers live in the module named by
// config.wvjbModule; JavaScript handlers are bridge handlers that native code calls by name.
if (!window.WebViewJavascriptBridge) {
  const wvjb = {
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
  };
  Object.defineProperty(window, 'WebViewJavascriptBridge', { value: Object.freeze(wvjb), writable: false, configurable: false });
  // Pages that queued callbacks before the bridge existed (the classic bootstrap) get them called now.
  const pendingCallbacks = Array.isArray(window.WVJBCallbacks) ? window.WVJBCallbacks : [];
  window.WVJBCallbacks = [];
  for (const callback of pendingCallbacks) {
    if (typeof callback === 'function') callback(wvjb);
  }
}
