// HybridKit bridge runtime: binary values. ArrayBuffers, typed arrays and Blobs in a call's arguments go to native in
// one upload to the bridge's scheme once native admitted the call (the upload's response is the call's answer);
// bytes in native's answers are fetched from that scheme, each once, by this frame's runtime, and stand where native
// wrote their placeholders. No base64, no JSON escaping of the bytes. Only this runtime knows the ids, and native
// hands an id's bytes only to the security origin they are for (the engine's Origin header).
// Part of the bridge runtime's closure: see transport.js for how BridgeRuntimeScript joins BridgeRuntime/. Not a script
// on its own; it uses from the shared scope:
//   `config`; from transport.js HybridError, parseJSON, applyFunction; from calls.js settle (when a message arrives);
//   from receive.js dispatch (when an upload is answered).

// Taken before any page script runs, like the transport's: a page that replaces fetch or the getters below must not
// see an id or change what is sent.
const bytesURL = config.bytesURL;
const keptFetch = window.fetch;
const KeptBlob = window.Blob;
const KeptUint8Array = Uint8Array;
const isArrayBufferView = ArrayBuffer.isView;
const getter = (proto, name) => Object.getOwnPropertyDescriptor(proto, name).get;
const bufferByteLength = getter(ArrayBuffer.prototype, 'byteLength');
const blobSize = KeptBlob ? getter(KeptBlob.prototype, 'size') : null;
const blobArrayBuffer = KeptBlob ? KeptBlob.prototype.arrayBuffer : null;
const responseOK = getter(Response.prototype, 'ok');
const responseStatus = getter(Response.prototype, 'status');
const responseArrayBuffer = Response.prototype.arrayBuffer;
const responseText = Response.prototype.text;
const getPrototypeOf = Object.getPrototypeOf;
const ownKeys = Object.keys;
const hasOwn = Object.prototype.hasOwnProperty;
const isArray = Array.isArray;
const defineOwn = Object.defineProperty;
const newRecord = Object.create;
// Ids pass only through these (and through string concatenation, which calls nothing): a page that replaced
// RegExp.prototype.test or exec, String, Set, Map, Array.from or Promise.all would otherwise be handed every id.
const KeptMap = Map;
const mapGet = Map.prototype.get;
const mapSet = Map.prototype.set;
const mapHas = Map.prototype.has;
const BYTES_KEY = '$hybridBytes';
// Binary calls admitted natively, waiting for their upload ticket: call id → parts.
const pendingUploads = new Map();

/** Whether `text` is an id of the bridge's scheme (32 lowercase hex digits), read without a method of the page's. */
function isBytesID(text) {
  if (typeof text !== 'string' || text.length !== 32) return false;
  for (let i = 0; i < 32; i++) {
    const c = text[i];
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  }
  return true;
}

// An own, writable property, defined rather than assigned: assigning would run a setter a page put on
// Object.prototype or Array.prototype under that key.
function putOwn(target, key, value) {
  defineOwn(target, key, { __proto__: null, value, writable: true, enumerable: true, configurable: true });
}

// What kind of bytes `value` is, by brand checks a plain object cannot pass: 'buffer', 'view', 'blob' or null.
function bytesKind(value) {
  if (value === null || typeof value !== 'object') return null;
  if (isArrayBufferView(value)) return 'view';
  try {
    applyFunction(bufferByteLength, value, []);
    return 'buffer';
  } catch (_) { /* not an ArrayBuffer */ }
  if (blobSize) {
    try {
      applyFunction(blobSize, value, []);
      return 'blob';
    } catch (_) { /* not a Blob */ }
  }
  return null;
}

function bytesLength(part) {
  const kind = bytesKind(part);
  if (kind === 'buffer') return applyFunction(bufferByteLength, part, []);
  if (kind === 'blob') return applyFunction(blobSize, part, []);
  return part.byteLength;
}

// Plain objects and arrays are looked into (as JSON.stringify would); anything else is left to JSON.stringify.
function isPlain(value) {
  if (isArray(value)) return true;
  const proto = getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

// Each object is looked into once (`seen`): arguments that refer to themselves (a cycle) or share an object many
// times would otherwise be walked without end, and the page would hang in hybrid.call instead of being refused.
function holdsBytes(value, depth, seen) {
  if (value === null || typeof value !== 'object' || depth > 64) return false;
  if (bytesKind(value)) return true;
  if (!isPlain(value)) return false;
  const visited = seen || new KeptMap();
  if (applyFunction(mapHas, visited, [value])) return false;
  applyFunction(mapSet, visited, [value, true]);
  const keys = ownKeys(value);
  for (let i = 0; i < keys.length; i++) if (holdsBytes(value[keys[i]], depth + 1, visited)) return true;
  return false;
}

// A copy of `value` with each binary value replaced by `{"$hybridBytes": <index into parts>}`. `copies` maps each
// object copied to its copy (null while it is being copied): an object met again while being copied is a cycle,
// which JSON could not carry either; one met again after is shared, and its copy is shared too.
function withPlaceholders(value, parts, depth, copies) {
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  if (bytesKind(value)) {
    putOwn(parts, parts.length, value);
    return { __proto__: null, [BYTES_KEY]: parts.length - 1 };
  }
  if (!isPlain(value)) return value;
  if (applyFunction(mapHas, copies, [value])) {
    const done = applyFunction(mapGet, copies, [value]);
    if (done === null) throw new HybridError('bad_arguments', 'arguments cannot be sent: they hold a cycle (an object that contains itself)');
    return done;
  }
  applyFunction(mapSet, copies, [value, null]);
  const copy = isArray(value) ? [] : newRecord(null);
  const keys = ownKeys(value);
  for (let i = 0; i < keys.length; i++) putOwn(copy, keys[i], withPlaceholders(value[keys[i]], parts, depth + 1, copies));
  applyFunction(mapSet, copies, [value, copy]);
  return copy;
}

/** The call's payload when its arguments hold bytes (`[sizes] json`), else null. Throws a HybridError. */
function binaryPayload(args) {
  if (!holdsBytes(args, 0)) return null;
  if (!bytesURL) throw new HybridError('bad_arguments', 'binary values are off: native could not serve the bridge\'s scheme (see its log)');
  const parts = [];
  const json = stringify(withPlaceholders(args, parts, 0, new KeptMap()));
  const sizes = parts.map(bytesLength);
  const total = sizes.reduce((sum, size) => sum + size, 0);
  if (parts.length > config.maxBinaryParts) throw new HybridError('bad_message', `a call may send at most ${config.maxBinaryParts} binary values`);
  if (total > config.maxBinaryBytes) throw new HybridError('bad_arguments', `${total} bytes exceed the limit of ${config.maxBinaryBytes}`);
  return { parts, text: '[' + sizes.join(',') + '] ' + json };
}

// One body for the upload. Never a Blob: WebKitGTK 2.50 crashes reading Blob data sent to a custom scheme.
async function uploadBody(parts) {
  if (parts.length === 1 && bytesKind(parts[0]) === 'buffer') return new KeptUint8Array(parts[0]);
  if (parts.length === 1 && bytesKind(parts[0]) === 'view') {
    const view = parts[0];
    return new KeptUint8Array(view.buffer, view.byteOffset, view.byteLength);
  }
  return applyFunction(blobArrayBuffer, new KeptBlob(parts), []);
}

async function failureOf(response) {
  let error = { code: 'internal', message: `the bridge's bytes answered ${applyFunction(responseStatus, response, [])}` };
  try {
    const parsed = parseJSON(await applyFunction(responseText, response, []));
    if (parsed && typeof parsed.code === 'string') error = parsed;
  } catch (_) { /* not ours: keep the status */ }
  return new HybridError(String(error.code), String(error.message));
}

// Native admitted binary call `id` and named its upload: send the bytes; the response is the call's answer.
async function sendUpload(id, upload) {
  const parts = pendingUploads.get(id);
  pendingUploads.delete(id);
  if (!isBytesID(upload)) return;
  try {
    // Native holds the call until its upload comes: one is always sent. Empty when the call already settled here
    // (its timeout) or its bytes cannot be read any more (a buffer detached since the call): native then refuses a
    // size that is not the one announced, or runs a call that announced none, and frees the call at once.
    let body;
    try {
      body = parts ? await uploadBody(parts) : new KeptUint8Array(0);
    } catch (_) {
      body = new KeptUint8Array(0);
    }
    // Options without a prototype: fetch reads every option it knows, inherited ones too, so a page's
    // `Object.prototype.signal` or `method` would otherwise reach into this request.
    const response = await keptFetch(bytesURL + 'u/' + upload, { __proto__: null, method: 'POST', body, mode: 'cors', credentials: 'omit', cache: 'no-store' });
    if (!applyFunction(responseOK, response, [])) throw await failureOf(response);
    dispatch(parseJSON(await applyFunction(responseText, response, [])));
  } catch (e) {
    settle(id, e instanceof HybridError ? e : new HybridError('internal', `the call's bytes could not be sent (${e && e.message}); a page with a Content-Security-Policy must allow ${bytesURL} in connect-src`));
  }
}

async function fetchBytes(id) {
  let response;
  try {
    response = await keptFetch(bytesURL + 'd/' + id, { __proto__: null, method: 'GET', mode: 'cors', credentials: 'omit', cache: 'no-store' });
  } catch (e) {
    // The engine refused the request before native saw it: most often the page's Content-Security-Policy.
    throw new HybridError('internal', `the answer's bytes could not be fetched (${e && e.message}); a page with a Content-Security-Policy must allow ${bytesURL} in connect-src`);
  }
  if (!applyFunction(responseOK, response, [])) throw await failureOf(response);
  return applyFunction(responseArrayBuffer, response, []);
}

// Never rejects: a fetch that failed before withBytes awaited it would otherwise be reported to the page as an
// unhandled rejection.
async function fetchSettled(id) {
  try {
    return { __proto__: null, ok: true, value: await fetchBytes(id) };
  } catch (error) {
    return { __proto__: null, ok: false, error };
  }
}

function isPlaceholder(value) {
  return value !== null && typeof value === 'object' && !isArray(value) && applyFunction(hasOwn, value, [BYTES_KEY])
    && isBytesID(value[BYTES_KEY]);
}

// `ids` is a record without a prototype: id → the promise of its bytes, whose fetch starts here.
function collectIds(value, ids, depth) {
  if (value === null || typeof value !== 'object' || depth > 256) return;
  if (isPlaceholder(value)) {
    const id = value[BYTES_KEY];
    if (!applyFunction(hasOwn, ids, [id])) putOwn(ids, id, fetchSettled(id));
    return;
  }
  const keys = ownKeys(value);
  for (let i = 0; i < keys.length; i++) collectIds(value[keys[i]], ids, depth + 1);
}

function replacePlaceholders(value, buffers, depth) {
  if (value === null || typeof value !== 'object' || depth > 256) return value;
  if (isPlaceholder(value)) return buffers[value[BYTES_KEY]];
  const keys = ownKeys(value);
  for (let i = 0; i < keys.length; i++) value[keys[i]] = replacePlaceholders(value[keys[i]], buffers, depth + 1);
  return value;
}

/** `value` (parsed from native's JSON) with each placeholder replaced by its bytes, as an ArrayBuffer. */
async function withBytes(value) {
  // Every fetch starts at once (collectIds); each is then awaited, which calls no method of the page's on a real
  // promise, where Promise.all would call its `then` and `resolve`.
  const pendingBytes = newRecord(null);
  collectIds(value, pendingBytes, 0);
  const buffers = newRecord(null);
  let failure = null;
  for (const id in pendingBytes) {
    // The others are still awaited after a failure, so none is left unread natively until it expires.
    const fetched = await pendingBytes[id];
    if (fetched.ok) putOwn(buffers, id, fetched.value);
    else if (!failure) failure = fetched.error;
  }
  if (failure) throw failure;
  return replacePlaceholders(value, buffers, 0);
}

/** Fetches the bytes a message of native's names (`b`), in place; a failure turns it into the error it ends with. */
async function fetchBytesOf(m) {
  try {
    if (m.k === 'r' && m.ok) m.r = await withBytes(m.r);
    else if (m.k === 'sc' || m.k === 'ev') m.d = await withBytes(m.d);
  } catch (e) {
    const error = { code: (e && e.code) || 'internal', message: String((e && e.message) || e) };
    if (m.k === 'r') {
      m.ok = false;
      m.e = error;
    } else if (m.k === 'sc') {
      m.d = [];
      m.end = true;
      m.e = error;
    } else {
      m.k = 'err';
      m.e = error;
    }
  }
}
