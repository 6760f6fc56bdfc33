// HybridKit bridge runtime: what native sends. The receiver native evaluates, the dispatch of its messages
// (ready, call results, stream chunks, events, JavaScript handler calls, state), and events relayed to subframes.
// Part of the bridge runtime's closure: see transport.js for how BridgeRuntimeScript joins BridgeRuntime/. Not a script
// on its own; it uses from the shared scope:
//   `config`; from transport.js parseJSON, HybridError, head, send, transmit, state, modules, queued, token,
//   listeners, jsHandlers; from calls.js settle, toError; from streams.js streamChunk; from state.js STATE_CHANGED,
//   applyState, applyStateSnapshot; from bytes.js sendUpload, fetchBytesOf, isArray; from api.js readyResolve,
//   restoredFromCache, sayHello (read when a message arrives, after api.js ran).

function emit(name, data) {
  const set = listeners.get(name);
  if (!set) return;
  for (const fn of Array.from(set)) {
    try {
      fn(data);
    } catch (e) {
      setTimeout(() => { throw e; }); // report, but let the other listeners run
    }
  }
}

function relayToChildren(name, data) {
  for (let i = 0; i < window.frames.length; i++) {
    try {
      window.frames[i].postMessage({ __hybridRelay: config.relaySecret, name, data }, '*');
    } catch (_) {
      // a frame that went away while we looped
    }
  }
}

function deliverEvent(name, data) {
  if (name === STATE_CHANGED) {
    // Only the news travels between frames; each frame asks native for what it may read.
    if (state === 'ready') sayHello();
  } else {
    emit(name, data);
  }
  relayToChildren(name, data);
}

// Finds handlers registered through another library's API (DSBridge's `register`), for names not in jsHandlers.
let handlerFallback = null;

async function runJSHandler(message) {
  const fn = jsHandlers.get(message.n) || (handlerFallback && handlerFallback(message.n));
  let reply;
  try {
    if (!fn) throw new HybridError('unknown_method', `no JavaScript handler named ${message.n}`);
    reply = { ok: true, r: (await fn(message.d)) ?? null };
  } catch (e) {
    reply = { ok: false, e: { code: (e && e.code) || 'internal', message: String((e && e.message) || e) } };
  }
  try {
    send(head('jsreply', message.id, '-', '-') + JSON.stringify(reply));
  } catch (_) {
    send(head('jsreply', message.id, '-', '-') + JSON.stringify({ ok: false, e: { code: 'bad_arguments', message: 'handler result cannot be sent' } }));
  }
}

/** Entry point for native's evaluations in this frame, `[deliveryKey, batchText]`: anything else is ignored. */
function receive(delivery) {
  if (!delivery || delivery[0] !== config.deliveryKey || typeof delivery[1] !== 'string') return;
  let batch;
  try {
    batch = parseJSON(delivery[1]);
  } catch (_) {
    return;
  }
  dispatch(batch);
}

// While a message waits for its bytes (`b`), the messages after it wait behind it, so none overtakes another.
let bytesInOrder = null;

/** Handles native → page messages: one message or an array of them, from native only. */
function dispatch(batch) {
  // The kept isArray (bytes.js): a batch can hold the ids of bytes, which a page's Array.isArray would be shown.
  const messages = isArray(batch) ? batch : batch ? [batch] : [];
  // Indexed, not for…of: that would call the page's Array.prototype[Symbol.iterator] with the batch.
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i];
    if (!m || typeof m !== 'object') continue;
    // Only the message's own fields are read: a field it lacks (`p`, `b`, `ok`…) would otherwise be looked up on
    // Object.prototype, where a page's getter would be handed the message, ids of bytes and tokens included.
    setPrototypeOf(m, null);
    // Messages that answer or address one document carry its token: skip those for an earlier document of
    // this frame, or for another frame.
    const addressed = m.k === 'ready' || m.k === 'r' || m.k === 'jscall' || m.k === 'up';
    if (addressed ? m.p !== token : m.p !== undefined && m.p !== token) continue;
    if (bytesInOrder || m.b) {
      const turn = (bytesInOrder || Promise.resolve()).then(() => (m.b ? fetchBytesOf(m) : null)).then(() => {
        handleMessage(m);
        if (bytesInOrder === turn) bytesInOrder = null;
      });
      bytesInOrder = turn;
    } else {
      handleMessage(m);
    }
  }
}

function handleMessage(m) {
  switch (m.k) {
    case 'ready': {
      applyState(m.state);
      if (state !== 'connecting') break;
      const first = readyResolve !== null;
      state = 'ready';
      modules = m.modules || {};
      while (queued.length) transmit(queued.shift());
      if (first) {
        readyResolve(modules);
        readyResolve = null;
        emit('ready', modules);
      } else if (restoredFromCache) {
        // Scripts of a page restored from the back/forward cache do not run again: this event is its
        // only chance to refresh what went stale while it was away. Sent once the bridge works again.
        restoredFromCache = false;
        emit('restore', { persisted: true });
      }
      break;
    }
    case 'r':
      settle(m.id, m.ok ? null : toError(m.e), m.r);
      break;
    case 'sc':
      streamChunk(m);
      break;
    case 'ev':
      deliverEvent(m.e, m.d);
      break;
    case 'jscall':
      runJSHandler(m);
      break;
    case 'err':
      emit('error', toError(m.e));
      break;
    case 'st0':
      applyStateSnapshot(m.e);
      break;
    case 'stc':
      deliverEvent(STATE_CHANGED, null);
      break;
    case 'up':
      sendUpload(m.id, m.u);
      break;
  }
}
