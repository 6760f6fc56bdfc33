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
const BYTES_KEY = '$hybridBytes';
const BYTES_ID = /^[0-9a-f]{32}$/;
// Binary calls admitted natively, waiting for their upload ticket: call id → parts.
const pendingUploads = new Map();

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

function holdsBytes(value, depth) {
  if (value === null || typeof value !== 'object' || depth > 64) return false;
  if (bytesKind(value)) return true;
  if (!isPlain(value)) return false;
  const keys = ownKeys(value);
  for (let i = 0; i < keys.length; i++) if (holdsBytes(value[keys[i]], depth + 1)) return true;
  return false;
}

// A copy of `value` with each binary value replaced by `{"$hybridBytes": <index into parts>}`.
function withPlaceholders(value, parts, depth) {
  if (value === null || typeof value !== 'object' || depth > 64) return value;
  if (bytesKind(value)) {
    parts.push(value);
    return { [BYTES_KEY]: parts.length - 1 };
  }
  if (!isPlain(value)) return value;
  if (isArray(value)) return value.map((item) => withPlaceholders(item, parts, depth + 1));
  const copy = {};
  for (const key of ownKeys(value)) copy[key] = withPlaceholders(value[key], parts, depth + 1);
  return copy;
}

/** The call's payload when its arguments hold bytes (`[sizes] json`), else null. Throws a HybridError. */
function binaryPayload(args) {
  if (!holdsBytes(args, 0)) return null;
  if (!bytesURL) throw new HybridError('bad_arguments', 'binary values are off: native could not serve the bridge\'s scheme (see its log)');
  const parts = [];
  const json = JSON.stringify(withPlaceholders(args, parts, 0));
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
  if (!parts || !BYTES_ID.test(String(upload))) return;
  try {
    const body = await uploadBody(parts);
    const response = await keptFetch(bytesURL + 'u/' + upload, { method: 'POST', body, mode: 'cors', credentials: 'omit', cache: 'no-store' });
    if (!applyFunction(responseOK, response, [])) throw await failureOf(response);
    dispatch(parseJSON(await applyFunction(responseText, response, [])));
  } catch (e) {
    settle(id, e instanceof HybridError ? e : new HybridError('internal', `the call's bytes could not be sent: ${e && e.message}`));
  }
}

async function fetchBytes(id) {
  const response = await keptFetch(bytesURL + 'd/' + id, { mode: 'cors', credentials: 'omit', cache: 'no-store' });
  if (!applyFunction(responseOK, response, [])) throw await failureOf(response);
  return applyFunction(responseArrayBuffer, response, []);
}

function isPlaceholder(value) {
  return value !== null && typeof value === 'object' && !isArray(value) && applyFunction(hasOwn, value, [BYTES_KEY])
    && typeof value[BYTES_KEY] === 'string' && BYTES_ID.test(value[BYTES_KEY]);
}

function collectIds(value, ids, depth) {
  if (value === null || typeof value !== 'object' || depth > 256) return;
  if (isPlaceholder(value)) {
    ids.add(value[BYTES_KEY]);
    return;
  }
  for (const key of ownKeys(value)) collectIds(value[key], ids, depth + 1);
}

function replacePlaceholders(value, buffers, depth) {
  if (value === null || typeof value !== 'object' || depth > 256) return value;
  if (isPlaceholder(value)) return buffers.get(value[BYTES_KEY]);
  for (const key of ownKeys(value)) value[key] = replacePlaceholders(value[key], buffers, depth + 1);
  return value;
}

/** `value` (parsed from native's JSON) with each placeholder replaced by its bytes, as an ArrayBuffer. */
async function withBytes(value) {
  const ids = new Set();
  collectIds(value, ids, 0);
  const buffers = new Map();
  await Promise.all(Array.from(ids, async (id) => buffers.set(id, await fetchBytes(id))));
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
