// DSBridge compatibility, on the same transport as window.hybrid.
// Pages written for DSBridge run unchanged: `dsBridge.call(method, args)` returns the native value in the same
// turn (a synchronous call: the method must be declared `synchronous` natively), `dsBridge.call(method, args,
// callback)` answers the callback later, `register`/`registerAsyn` (a function, or an object of them under a
// namespace) give native JavaScript methods to call, `hasNativeMethod(name, type)` and
// `disableJavascriptDialogBlock(disable)` behave as documented by DSBridge, and `window.close()` reaches the host.
// A page that loads DSBridge's own dsbridge.js first works too: that script calls `prompt('_dsbridge=' + method,
// argumentText)`, which is answered here, and it leaves the globals below in place (it sets up only when
// `_dsf` is missing).
// Progress callbacks (one asynchronous call answered many times) are native stream methods: the callback gets
// each element.
//
// Names map to modules by namespace: 'echo.syn' is method `syn` of module `echo`, 'a.b.method' is `method` of
// module `a.b`, and a name without a namespace is a method of config.dsbridgeModule. The '_dsb' namespace is
// DSBridge's own (dsinit, hasNativeMethod, disableJavascriptDialogBlock, closePage, returnValue).
//
// Part of the bridge runtime's closure: see transport.js for how BridgeRuntimeScript joins BridgeRuntime/. Not a script
// on its own; it uses from the shared scope:
//   `config`; from transport.js parseJSON, stringify, applyFunction; from sync.js callSync, has; from streams.js
//   openStream; from receive.js handlerFallback, which it sets.
if (config.dsbridge && !('dsBridge' in window) && !('_dsf' in window)) {
  const dsModule = config.dsbridgeModule;

  function target(name) {
    const text = String(name);
    const dot = text.lastIndexOf('.');
    return dot > 0 ? [text.slice(0, dot), text.slice(dot + 1)] : [dsModule, text];
  }

  // With the block disabled, DSBridge answers a page's alert/confirm/prompt at once instead of showing them.
  // Dialogs here never hold up the bridge (calls do not wait on them), so the flag is only remembered.
  let dialogBlockDisabled = false;

  function dsbMethod(method, data) {
    switch (method) {
      case 'dsinit':
      case 'returnValue': // answers of JavaScript methods travel back through hybrid.handle
        return null;
      case 'hasNativeMethod': {
        const [module, name] = target(data && data.name);
        const kind = has(module, name);
        const type = (data && data.type) || 'all';
        // Every HybridKit method can be called with a callback; only those declared synchronous without one.
        return type === 'syn' ? kind === 'sync' : kind !== null;
      }
      case 'disableJavascriptDialogBlock':
        dialogBlockDisabled = !(data && data.disable === false);
        return dialogBlockDisabled;
      case 'closePage':
        window.close();
        return null;
      default:
        return undefined;
    }
  }

  // Calls window[stub] (DSBridge's callback stub) with the value; a complete answer removes the stub.
  function answerStub(stub, value, complete) {
    const fn = window[stub];
    if (typeof fn !== 'function') return;
    try {
      fn(value);
    } catch (e) {
      setTimeout(() => { throw e; });
    }
    if (complete) delete window[stub];
  }

  // DSBridge's wire: the argument text is {"data": …, "_dscbstub"?: "dscbN"}; the answer text {"code": 0, "data": …}
  // (code -1 when the call failed: DSBridge pages read `.data` and get "").
  function dsCall(method, argumentText) {
    let argument;
    try {
      argument = parseJSON(argumentText === undefined || argumentText === null ? '{}' : String(argumentText));
    } catch (_) {
      console.warn(`dsBridge: ${method}: arguments are not JSON`);
      return stringify({ code: -1, data: '' });
    }
    const data = argument && typeof argument === 'object' && 'data' in argument ? argument.data : null;
    const stub = argument && typeof argument._dscbstub === 'string' ? argument._dscbstub : null;
    const [module, name] = target(method);
    if (module === '_dsb') {
      try {
        return stringify({ code: 0, data: dsbMethod(name, data) });
      } catch (e) {
        console.warn(`dsBridge: ${method} failed: ${e.code}: ${e.message}`);
        return stringify({ code: -1, data: '' });
      }
    }
    if (stub) {
      // Read as a stream, so a native stream method answers the callback once per element (DSBridge's progress
      // callbacks); any other method is a one-element stream. The stub goes once the stream ends.
      openStream(module, name, data).forEach((value) => answerStub(stub, value, false)).then(
        () => { delete window[stub]; },
        (error) => {
          console.warn(`dsBridge: ${method} failed: ${error.code}: ${error.message}`);
          delete window[stub];
        },
      );
      return stringify({ code: 0 });
    }
    try {
      return stringify({ code: 0, data: callSync(module, name, data) });
    } catch (e) {
      console.warn(`dsBridge: ${method} failed: ${e.code}: ${e.message}`);
      return stringify({ code: -1, data: '' });
    }
  }

  const dsBridge = Object.freeze({
    call(method, args, callback) {
      if (typeof args === 'function') {
        callback = args;
        args = {};
      }
      const argument = { data: args === undefined ? null : args };
      if (typeof callback === 'function') {
        const stub = `dscb${window.dscb++}`;
        window[stub] = callback;
        argument._dscbstub = stub;
      }
      return parseJSON(dsCall(String(method), stringify(argument)) || '{}').data;
    },
    register(name, fn, asynchronous) {
      const table = asynchronous ? window._dsaf : window._dsf;
      if (typeof fn === 'object' && fn !== null) table._obs[name] = fn;
      else table[name] = fn;
    },
    registerAsyn(name, fn) {
      this.register(name, fn, true);
    },
    hasNativeMethod(name, type) {
      return this.call('_dsb.hasNativeMethod', { name, type: type || 'all' });
    },
    disableJavascriptDialogBlock(disable) {
      this.call('_dsb.disableJavascriptDialogBlock', { disable: disable !== false });
    },
  });

  // A registered JavaScript method: a plain or asynchronous function, alone or in a namespace object.
  function lookup(name) {
    const sync = window._dsf || {};
    const asynchronous = window._dsaf || {};
    if (typeof sync[name] === 'function' && name !== '_obs') return { fn: sync[name], self: sync, asynchronous: false };
    if (typeof asynchronous[name] === 'function' && name !== '_obs') return { fn: asynchronous[name], self: asynchronous, asynchronous: true };
    const dot = String(name).lastIndexOf('.');
    if (dot <= 0) return null;
    const namespace = name.slice(0, dot);
    const method = name.slice(dot + 1);
    const syncObject = sync._obs && sync._obs[namespace];
    if (syncObject && typeof syncObject[method] === 'function') return { fn: syncObject[method], self: syncObject, asynchronous: false };
    const asyncObject = asynchronous._obs && asynchronous._obs[namespace];
    if (asyncObject && typeof asyncObject[method] === 'function') return { fn: asyncObject[method], self: asyncObject, asynchronous: true };
    return null;
  }

  // Native calls them as bridge handlers (`callJavaScript(name, [arguments])`): an array is the argument list,
  // as DSBridge's callHandler passes it. An asynchronous method answers through the callback DSBridge appends;
  // the answer native gets is the one marked complete (progress answers before it are not sent).
  handlerFallback = (name) => {
    const found = lookup(name);
    if (!found) return null;
    return (data) => {
      const args = Array.isArray(data) ? data.slice() : data === undefined || data === null ? [] : [data];
      if (!found.asynchronous) return applyFunction(found.fn, found.self, args);
      return new Promise((resolve) => {
        args.push((value, complete) => { if (complete !== false) resolve(value); });
        applyFunction(found.fn, found.self, args);
      });
    };
  };

  window._dsf = { _obs: {} };
  window._dsaf = { _obs: {} };
  window.dscb = 0;
  // DSBridge's own script, loaded later, takes its WKWebView path (prompt) when it sees this.
  window._dswk = true;
  // Writable: DSBridge's own script may put its object here, and that one works too (through prompt).
  window.dsBridge = dsBridge;
  dsBridge.register('_hasJavascriptMethod', (method) => lookup(String(method)) !== null);

  const pagePrompt = window.prompt;
  window.prompt = function prompt(message, defaultText) {
    if (typeof message === 'string' && message.startsWith('_dsbridge=')) return dsCall(message.slice(10), defaultText);
    return applyFunction(pagePrompt, window, Array.from(arguments));
  };
}
