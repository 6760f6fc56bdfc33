// HybridKit bridge runtime: asynchronous calls to native (`hybrid.call`), their settlement and timeouts.
// Part of the bridge runtime's closure: see transport.js for how BridgeRuntimeScript joins BridgeRuntime/. Not a script
// on its own; it uses from the shared scope:
//   `config`; from transport.js HybridError, NAME, FREE_FORM_NAME, head, send, state, nextId, pending; from bytes.js
//   binaryPayload, pendingUploads.

function settle(id, error, value) {
  const call = pending.get(id);
  if (!call) return; // already settled (timeout, navigation) or not ours: never settle twice
  pending.delete(id);
  pendingUploads.delete(id);
  if (error) call.reject(error);
  else call.resolve(value);
}

// One timer for every pending call, armed for the earliest deadline, instead of a timer per call: with the
// usual uniform timeout a new call never moves the earliest deadline, so a call costs no timer work at all.
let timeoutTimer = 0;
let timeoutAt = Infinity;

function armTimeouts(deadline) {
  if (deadline >= timeoutAt) return;
  clearTimeout(timeoutTimer);
  timeoutAt = deadline;
  timeoutTimer = setTimeout(expireCalls, Math.max(0, deadline - Date.now()));
}

function expireCalls() {
  timeoutAt = Infinity;
  const now = Date.now();
  let next = Infinity;
  for (const [id, call] of Array.from(pending)) {
    if (call.deadline <= now) settle(id, new HybridError('timeout', call.what));
    else if (call.deadline < next) next = call.deadline;
  }
  if (next !== Infinity) armTimeouts(next);
}

function failAll(code, message) {
  for (const id of Array.from(pending.keys())) settle(id, new HybridError(code, message));
}

function toError(e) {
  return new HybridError(e && e.code ? String(e.code) : 'internal', e && e.message ? String(e.message) : 'unknown error', e && e.details);
}

function call(module, method, args, optionsOrCallback, maybeCallback) {
  const callback = typeof optionsOrCallback === 'function' ? optionsOrCallback : maybeCallback;
  const options = typeof optionsOrCallback === 'object' && optionsOrCallback !== null ? optionsOrCallback : {};
  const promise = new Promise((resolve, reject) => {
    if (state === 'closed') return reject(new HybridError('navigated', 'the page is going away'));
    const methodPattern = module === config.wvjbModule ? FREE_FORM_NAME : NAME;
    if (!NAME.test(String(module)) || !methodPattern.test(String(method))) {
      return reject(new HybridError('bad_message', `invalid module or method name: ${String(module)}.${String(method)}`));
    }
    let payload;
    let binary = null;
    try {
      // Arguments holding bytes go as a binary call: their bytes follow in one upload (bytes.js).
      binary = binaryPayload(args === undefined ? null : args);
      payload = binary ? binary.text : JSON.stringify(args === undefined ? null : args);
    } catch (e) {
      return reject(e instanceof HybridError ? e : new HybridError('bad_arguments', `arguments cannot be sent: ${e.message}`));
    }
    const id = nextId++;
    let text;
    try {
      text = head(binary ? 'bcall' : 'call', id, module, method) + payload;
    } catch (_) {
      // encodeURIComponent refuses lone surrogates
      return reject(new HybridError('bad_message', `invalid method name: ${String(method)}`));
    }
    if (text.length > config.maxMessageLength) {
      return reject(new HybridError('bad_message', `message of ${text.length} characters exceeds the limit of ${config.maxMessageLength}`));
    }
    const timeout = options.timeout === undefined ? config.callTimeoutMs : Number(options.timeout);
    const deadline = timeout > 0 ? Date.now() + timeout : Infinity;
    pending.set(id, { resolve, reject, deadline, what: `${module}.${method} did not answer within ${timeout} ms` });
    if (binary) pendingUploads.set(id, binary.parts);
    armTimeouts(deadline);
    try {
      send(text);
    } catch (e) {
      settle(id, e instanceof HybridError ? e : new HybridError('internal', String(e && e.message)));
    }
  });
  if (callback) promise.then((value) => callback(null, value), (error) => callback(error));
  return promise;
}
