// HybridKit bridge runtime: native streams (`hybrid.stream`), read with flow control.
// Part of the bridge runtime's closure: see transport.js for how BridgeRuntimeScript joins BridgeRuntime/. Not a script
// on its own; it uses from the shared scope:
//   `config`; from transport.js HybridError, NAME, head, send, stringify, state, nextId; from calls.js toError; from
//   bytes.js holdsBytes.

// Streams: id → state. The opening message asks for the first window of elements; the page asks for more
// (`pull`) when it has read half of what it holds, so each side holds at most about a window.
const streams = new Map();

function streamSettle(s) {
  while (s.waiters.length && s.buffer.length) s.waiters.shift().resolve({ value: s.buffer.shift(), done: false });
  if (!s.buffer.length && (s.done || s.error)) {
    streams.delete(s.id);
    for (const waiter of s.waiters.splice(0)) {
      if (s.error) waiter.reject(s.error);
      else waiter.resolve({ value: undefined, done: true });
    }
  }
}

function streamPull(s) {
  if (s.pulling || s.done || s.error || s.buffer.length > config.streamWindow / 2) return;
  s.pulling = true;
  try {
    send(head('pull', s.id, '-', '-') + String(config.streamWindow));
  } catch (e) {
    s.pulling = false;
    s.error = e instanceof HybridError ? e : new HybridError('internal', String(e && e.message));
    streamSettle(s);
  }
}

function streamChunk(m) {
  const s = streams.get(m.id);
  if (!s || s.closed) return;
  s.pulling = false;
  if (Array.isArray(m.d)) for (const value of m.d) s.buffer.push(value);
  if (m.end) {
    if (m.e) s.error = toError(m.e);
    else s.done = true;
  }
  streamSettle(s);
  if (s.waiters.length || s.buffer.length <= config.streamWindow / 2) streamPull(s);
}

function failStreams(code, message) {
  for (const s of Array.from(streams.values())) {
    s.error = new HybridError(code, message);
    s.buffer.length = 0;
    streamSettle(s);
  }
}

/**
 * Reads a native stream method: an async iterator (`for await (const x of hybrid.stream(…))`), or
 * `.forEach(fn)` for a callback per element. Leaving the loop early cancels the native side.
 */
function openStream(module, method, args) {
  const s = { id: 0, buffer: [], waiters: [], pulling: true, done: false, error: null, closed: false };
  const fail = (error) => {
    s.error = error;
    return iterator;
  };
  const iterator = {
    next() {
      if (s.buffer.length) {
        const value = s.buffer.shift();
        streamPull(s);
        if (!s.buffer.length && (s.done || s.error)) streamSettle(s);
        return Promise.resolve({ value, done: false });
      }
      if (s.error) return Promise.reject(s.error);
      if (s.done || s.closed) return Promise.resolve({ value: undefined, done: true });
      return new Promise((resolve, reject) => {
        s.waiters.push({ resolve, reject });
        streamPull(s);
      });
    },
    return(value) {
      if (!s.closed && !s.done && !s.error && streams.has(s.id)) {
        try {
          send(head('cancel', s.id, '-', '-') + 'null');
        } catch (_) {
          // the page is going away: native cancels the stream with it
        }
      }
      s.closed = true;
      s.buffer.length = 0;
      streams.delete(s.id);
      for (const waiter of s.waiters.splice(0)) waiter.resolve({ value: undefined, done: true });
      return Promise.resolve({ value, done: true });
    },
    [Symbol.asyncIterator]() { return iterator; },
    /** Calls `fn` with each element; resolves when the stream ends, rejects with its error. */
    async forEach(fn) {
      for await (const value of iterator) fn(value);
    },
  };
  if (state === 'closed') return fail(new HybridError('navigated', 'the page is going away'));
  if (!NAME.test(String(module)) || !NAME.test(String(method))) {
    return fail(new HybridError('bad_message', `invalid module or method name: ${String(module)}.${String(method)}`));
  }
  let payload;
  try {
    // Bytes go up only as an asynchronous call's upload (bytes.js), which a blocked page or a stream's opening cannot make.
    if (holdsBytes(args, 0)) return fail(new HybridError('bad_arguments', 'binary values can only be sent with hybrid.call'));
    payload = stringify(args === undefined ? null : args);
  } catch (e) {
    return fail(new HybridError('bad_arguments', `arguments cannot be sent: ${e.message}`));
  }
  const text = head('stream', nextId, module, method) + payload;
  if (text.length > config.maxMessageLength) {
    return fail(new HybridError('bad_message', `message of ${text.length} characters exceeds the limit of ${config.maxMessageLength}`));
  }
  s.id = nextId++;
  streams.set(s.id, s);
  try {
    send(text);
  } catch (e) {
    streams.delete(s.id);
    return fail(e instanceof HybridError ? e : new HybridError('internal', String(e && e.message)));
  }
  return iterator;
}
