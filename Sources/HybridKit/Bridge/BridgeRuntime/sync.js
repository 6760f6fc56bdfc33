// HybridKit bridge runtime: synchronous calls (`hybrid.callSync`, `hybrid.has`), one blocking prompt each.
// Part of the bridge runtime's closure: see transport.js for how BridgeRuntimeScript joins BridgeRuntime/. Not a script
// on its own; it uses from the shared scope:
//   `config`; from bytes.js holdsBytes; from transport.js the kept parseJSON, stringify, applyFunction, frameSync and nativePrompt,
//   HybridError, NAME, FREE_FORM_NAME, head, state, nextId, securityOrigin; from calls.js toError.

function syncRound(text) {
  const message = `H1sync ${config.syncKey}\n${text}`;
  const answer = frameSync ? frameSync(message) : applyFunction(nativePrompt, window, [message, '']);
  if (typeof answer !== 'string') {
    // WebKit answers null at once where dialogs are not allowed: a sandboxed frame without allow-modals.
    if (securityOrigin === 'null') throw new HybridError('denied', 'this frame cannot block for native (a sandboxed frame needs allow-modals)');
    throw new HybridError('internal', 'synchronous calls are not answered in this view: the host must let HybridPage see script dialogs first');
  }
  let reply;
  try {
    reply = parseJSON(answer);
  } catch (_) {
    throw new HybridError('internal', 'unreadable answer to a synchronous call');
  }
  if (reply && reply.ok === true) return reply.r;
  throw toError(reply && reply.e);
}

/** Calls a method declared synchronous natively and returns its result in this turn (or throws a HybridError). */
function callSync(module, method, args) {
  if (state === 'closed') throw new HybridError('navigated', 'the page is going away');
  const methodPattern = module === config.wvjbModule ? FREE_FORM_NAME : NAME;
  if (!NAME.test(String(module)) || !methodPattern.test(String(method))) {
    throw new HybridError('bad_message', `invalid module or method name: ${String(module)}.${String(method)}`);
  }
  let payload;
  try {
    // Bytes go up only as an asynchronous call's upload (bytes.js), which a blocked page or a stream's opening cannot make.
    if (holdsBytes(args, 0)) throw new HybridError('bad_arguments', 'binary values can only be sent with hybrid.call');
    payload = stringify(args === undefined ? null : args);
  } catch (e) {
    throw new HybridError('bad_arguments', `arguments cannot be sent: ${e.message}`);
  }
  let text;
  try {
    text = head('call', nextId++, module, method) + payload;
  } catch (_) {
    throw new HybridError('bad_message', `invalid method name: ${String(method)}`);
  }
  if (text.length > config.maxMessageLength) {
    throw new HybridError('bad_message', `message of ${text.length} characters exceeds the limit of ${config.maxMessageLength}`);
  }
  return syncRound(text);
}

/** 'sync', 'async' or null: how this frame may call `module.method` (null when it may not, or it does not exist). */
function has(name, maybeMethod) {
  let module = String(name);
  let method = maybeMethod;
  if (method === undefined) {
    const dot = module.lastIndexOf('.');
    if (dot <= 0) return null;
    method = module.slice(dot + 1);
    module = module.slice(0, dot);
  }
  try {
    return callSync('$hybrid', 'has', [module, String(method)]);
  } catch (e) {
    if (e instanceof HybridError && (e.code === 'bad_message' || e.code === 'denied')) return null;
    throw e;
  }
}
