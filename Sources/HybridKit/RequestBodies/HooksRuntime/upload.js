// HybridKit request hooks: request bodies. Serialising a body as the engine would, uploading it in chunks to the
// body store or in one piece over the body channel, discarding it, and the proxy descriptor header.
// Part of the body of `install(win, parentPageURL)`, which hooks one realm: see core.js for how RequestHooksScript
// joins HooksRuntime/ into one closure. Not a script on its own; it uses from the shared scope:
//   `win`, `config`; from core.js P, TYPE_HEADER, BODY_HEADER, KEY_HEADER, BODY_KEY, tagOf, ownBytes, bare, HookError,
//   ChannelUnreachable, PROXY_HEADER, channelLost; from page.js pageURL, reserved, keyed, keyedFetch, channelURL.

// The bytes and default Content-Type the engine itself would send for `body` (the engine serialises
// FormData, so multipart boundaries match the Content-Type).
async function serialize(body, kind) {
  if (kind === 'none') return { blob: null, type: null };
  if (kind === 'blob') return { blob: body, type: body.type || null };
  if (kind === 'stream') {
    const parts = [];
    const reader = body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(typeof value === 'string' ? value : new Uint8Array(value.buffer || value, value.byteOffset || 0, value.byteLength));
    }
    return { blob: new win.Blob(parts), type: null };
  }
  if (kind === 'document') {
    const text = new win.XMLSerializer().serializeToString(body);
    const html = tagOf(body) === '[object HTMLDocument]';
    return { blob: new win.Blob([text]), type: html ? 'text/html;charset=UTF-8' : 'application/xml;charset=UTF-8' };
  }
  if (kind === 'formdata') return multipart(body);
  if (kind === 'other') body = String(body);
  const request = new win.Request(pageURL, { __proto__: null, method: 'POST', body });
  return { blob: await request.blob(), type: request.headers.get('Content-Type') };
}

// multipart/form-data as the engine writes it (WebKit cannot hand back a FormData body holding files as a
// Blob): parts reference the Files, so nothing is copied until the upload reads a chunk. Names, filenames and text
// values go as UTF-8, or as `encode(text)` writes them (a form in a legacy encoding, see form.js).
function multipart(form, encode) {
  const text = encode || ((string) => string);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';
  const random = new Uint8Array(16);
  win.crypto.getRandomValues(random);
  const boundary = '----WebKitFormBoundary' + Array.from(random, (b) => alphabet[b % alphabet.length]).join('');
  const quote = (text) => text.replace(/"/g, '%22').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
  const parts = [];
  for (const [name, value] of form) {
    // Names and text values with their line breaks as CRLF, as the engine's encoding writes them.
    let head = '--' + boundary + '\r\nContent-Disposition: form-data; name="' + quote(crlf(name)) + '"';
    if (typeof value === 'string') {
      parts.push(text(head + '\r\n\r\n'), text(crlf(value)), '\r\n');
    } else {
      head += '; filename="' + quote(value.name) + '"\r\nContent-Type: ' + (value.type || 'application/octet-stream');
      parts.push(text(head + '\r\n\r\n'), value, '\r\n');
    }
  }
  parts.push('--' + boundary + '--\r\n');
  return { blob: new win.Blob(parts), type: 'multipart/form-data; boundary=' + boundary };
}

// `text` with every line break (CR, LF or CRLF) written as CRLF.
function crlf(text) {
  return text.replace(/\r\n|\r|\n/g, '\r\n');
}

// Uploads `blob` in chunks; returns the body id. The first chunk creates the body and names its id (`onID(id)`
// right then, before the rest is up); the others go up to `config.uploadsInFlight` at a time, each at its
// offset (the store takes them in any order). `onProgress(loaded, total)` as chunks complete; `loaded` grows.
async function upload(blob, type, signal, onProgress, onID) {
  const size = P.blobSize(blob);
  const step = config.chunkBytes;
  // One failed chunk stops the others.
  const stop = new win.AbortController();
  const forward = () => stop.abort(signal.reason);
  if (signal) {
    if (signal.aborted) forward();
    else signal.addEventListener('abort', forward, { __proto__: null, once: true });
  }
  const post = async (url, offset, end, headers) => {
    // Bytes the hooks own: `blob` may be the page's, with its methods replaced.
    const bytes = end > offset ? ownBytes(await P.blobBytes(P.blobSlice(blob, offset, end)), end - offset)
      : new P.U8(0);
    const response = await keyedFetch(url, bare({
      method: 'POST', body: bytes, headers: keyed(headers), signal: stop.signal, cache: 'no-store',
    }));
    const answer = await response.json().catch(() => ({}));
    if (!response.ok) throw new HookError(answer.error || 'body upload failed with status ' + response.status);
    return { answer, length: end - offset };
  };
  try {
    // With the body channel the first request only reserves the body (size, type, origin); the bytes follow
    // in one upload the engine makes itself.
    const channel = size > 0 ? channelURL() : null;
    const viaChannel = channel !== null;
    const first = await post(reserved('body?size=' + size), 0, viaChannel ? 0 : Math.min(size, step),
      type ? { [TYPE_HEADER]: type } : {});
    const id = first.answer.id;
    onID(id);
    let loaded = first.length;
    if (loaded > 0) onProgress(loaded, size);
    if (viaChannel) {
      try {
        await sendOverChannel(channel, blob, id, stop.signal, onProgress);
        return id;
      } catch (error) {
        // Unreachable (not listening, suspended app): the same body in slices, as if there were no channel.
        if (!(error instanceof ChannelUnreachable) || stop.signal.aborted) throw error;
        channelLost = true;
      }
    }
    let next = loaded;
    const worker = async () => {
      while (next < size) {
        const offset = next;
        const end = Math.min(size, offset + step);
        next = end;
        const done = await post(reserved('body/' + id + '?offset=' + offset), offset, end, {});
        loaded += done.length;
        onProgress(loaded, size);
      }
    };
    const workers = [];
    for (let i = 0; i < Math.max(1, config.uploadsInFlight || 1); i++) workers.push(worker());
    await Promise.all(workers);
    return id;
  } catch (error) {
    stop.abort();
    throw error;
  } finally {
    if (signal) signal.removeEventListener('abort', forward);
  }
}

// Sends the whole `blob` to the body channel with the engine's own XHR: its network process reads the Blob where
// the bytes are and streams them to native, which stores them as they arrive. The key goes in a header (request
// headers are invisible to page scripts; a URL is not: resource timing lists it), so does the id. Rejects with
// ChannelUnreachable when no answer came (refused connection, CORS refusal), with HookError when native refused.
function sendOverChannel(channel, blob, id, signal, onProgress) {
  return new Promise((resolve, reject) => {
    const xhr = new P.XHR();
    // One URL for every body, so the engine keeps the CORS preflight's answer instead of asking each time.
    P.open(xhr, 'POST', channel + '/body');
    P.setRequestHeader(xhr, KEY_HEADER, BODY_KEY);
    P.setRequestHeader(xhr, BODY_HEADER, id);
    const abort = () => P.abort(xhr);
    if (P.aborted(signal)) return reject(signal.reason);
    P.listen(signal, 'abort', abort, { __proto__: null, once: true });
    const size = P.blobSize(blob);
    P.listen(P.upload(xhr), 'progress', (event) => { if (event.loaded > 0) onProgress(event.loaded, size); });
    P.listen(xhr, 'loadend', () => {
      P.unlisten(signal, 'abort', abort);
      const status = P.status(xhr);
      if (status === 200) return resolve();
      if (status === 0) return reject(P.aborted(signal) ? signal.reason : new ChannelUnreachable());
      let answer = {};
      try { answer = P.parseJSON(P.responseText(xhr)); } catch (e) { /* no JSON: the status says it */ }
      reject(new HookError(answer.error || 'body upload failed with status ' + status));
    });
    P.send(xhr, blob);
  });
}

// A full-proxy request with its body, in one exchange with the body channel: the descriptor and the key in headers,
// the Blob as the body (the engine's network process streams it from where its bytes are; native starts the request
// upstream at the head and sends each byte on as it lands), the proxied answer streamed back on the same exchange.
// The channel answers 200 with the real head in X-Hybrid-Head (so the engine follows no redirect and asks for no
// credentials); this returns a response-like record of that head over the channel's body stream. Returns null when
// the channel could not be reached or refused the head (a network error, before anything went upstream), so the
// caller sends the request the other way; rejects as the page's fetch would when the page aborted.
async function proxyOverChannel(channel, descriptor, blob, signal) {
  let response;
  try {
    response = await channelProxyRequest(channel, descriptor, blob, { signal });
  } catch (error) {
    if (P.aborted(signal)) throw error;
    channelLost = true;
    return null;
  }
  const encoded = response.headers.get('X-Hybrid-Head');
  let head = null;
  try {
    head = encoded && P.parseJSON(decodeURIComponent(encoded));
  } catch (e) { /* reported below */ }
  if (!head || typeof head.status !== 'number' || !Array.isArray(head.headers)) {
    if (response.body) response.body.cancel().catch(() => {});
    throw new TypeError('HybridKit proxy: the body channel answered without a response head');
  }
  return {
    status: head.status, statusText: String(head.statusText || ''), headers: new win.Headers(head.headers),
    body: response.body, json: () => response.json(),
  };
}

// The keyed request that carries `descriptor` and `blob` to the channel's proxy route, with `options` (a signal,
// keepalive) added; the engine's own fetch, so it reads the Blob itself.
function channelProxyRequest(channel, descriptor, blob, options) {
  return keyedFetch(channel + '/proxy', bare({
    method: 'POST', body: blob, cache: 'no-store', credentials: 'omit', mode: 'cors', redirect: 'error',
    referrerPolicy: 'no-referrer',
    headers: keyed({ [PROXY_HEADER]: descriptorHeader(descriptor), 'Content-Type': 'application/octet-stream' }),
  }, options));
}

function discard(id) {
  // Keyed: native refuses a DELETE without the key unread, like any request that may carry a body.
  if (id) {
    keyedFetch(reserved('body/' + id), bare({ method: 'DELETE', headers: keyed(), cache: 'no-store' }))
      .catch(() => {});
  }
}

function descriptorHeader(descriptor) {
  return encodeURIComponent(JSON.stringify(descriptor));
}
