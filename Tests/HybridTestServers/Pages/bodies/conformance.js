// Request-body conformance cases. The same page runs hooked (on the custom scheme) and unhooked (on the loopback
// http origin); the native test compares what each run reports. Results land in window.results[key] as JSON.
(function () {
  'use strict';
  const bytes = (n, seed) => {
    const out = new Uint8Array(n);
    for (let i = 0; i < n; i++) out[i] = (i * 31 + seed + (i >> 8)) & 255;
    return out;
  };
  const big = bytes(600 * 1024, 7);
  const text = 'héllo wörld ✓ 🚀 ' + 'x'.repeat(1000);

  // Each case: a fresh body and the bytes the server must see (null: multipart, compared part by part).
  const bodies = {
    none: () => ({ body: undefined, expect: new Uint8Array(0), method: 'GET' }),
    string: () => ({ body: text, expect: new TextEncoder().encode(text) }),
    urlsearchparams: () => {
      const p = new URLSearchParams({ a: '1', b: 'ü & = +', c: 'x y' });
      return { body: p, expect: new TextEncoder().encode(p.toString()) };
    },
    formdata_text: () => {
      const f = new FormData();
      f.append('name', 'Zoë');
      f.append('note', 'a "quoted" value');
      // Line breaks of every kind: the engine's multipart encoding turns each into CRLF.
      f.append('lines\r', 'one\ntwo\rthree\r\nfour');
      return { body: f, expect: null };
    },
    formdata_files: () => {
      const f = new FormData();
      f.append('name', 'Zoë');
      f.append('file', new File([bytes(70000, 3)], 'photo "1".png', { type: 'image/png' }));
      f.append('blob', new Blob([bytes(5000, 9)]));
      return { body: f, expect: null };
    },
    blob: () => ({ body: new Blob([big], { type: 'application/x-test' }), expect: big }),
    blob_untyped: () => ({ body: new Blob([big.subarray(0, 1000)]), expect: big.subarray(0, 1000) }),
    file: () => ({ body: new File([big.subarray(0, 3000)], 'a.bin', { type: 'image/png' }), expect: big.subarray(0, 3000) }),
    arraybuffer: () => ({ body: big.slice(0, 4096).buffer, expect: big.subarray(0, 4096) }),
    typedarray: () => {
      const view = new Uint16Array(big.buffer, 2, 500);
      return { body: view, expect: big.subarray(2, 1002) };
    },
    dataview: () => ({ body: new DataView(big.buffer, 3, 777), expect: big.subarray(3, 780) }),
    readablestream: () => {
      const chunks = [big.subarray(0, 100000), big.subarray(100000, 250000)];
      const body = new ReadableStream({
        start(controller) { chunks.forEach((c) => controller.enqueue(c)); controller.close(); },
      });
      return { body, expect: big.subarray(0, 250000), stream: true };
    },
    request: () => ({ body: new Blob([big.subarray(0, 9000)], { type: 'text/x-request' }), expect: big.subarray(0, 9000), asRequest: true }),
  };

  async function sha(data) {
    const digest = await crypto.subtle.digest('SHA-256', data);
    return Array.from(new Uint8Array(digest), (b) => b.toString(16).padStart(2, '0')).join('');
  }

  function compact(events) {
    return events.filter((e, i) => e !== events[i - 1]);
  }

  function xhrRequest(options) {
    return new Promise((resolve) => {
      const xhr = new XMLHttpRequest();
      const events = [];
      const log = (prefix) => (e) => events.push(prefix + e.type + (e.type === 'readystatechange' ? xhr.readyState : ''));
      for (const type of ['loadstart', 'progress', 'load', 'error', 'abort', 'timeout', 'loadend']) {
        xhr.addEventListener(type, log(''));
        xhr.upload.addEventListener(type, log('upload.'));
      }
      xhr.onreadystatechange = log('');
      xhr.open(options.method, options.url, options.sync !== true);
      if (options.header) xhr.setRequestHeader('X-Test', options.header);
      if (options.contentType) xhr.setRequestHeader('Content-Type', options.contentType);
      if (options.responseType) xhr.responseType = options.responseType;
      if (options.timeout) xhr.timeout = options.timeout;
      if (options.credentials) xhr.withCredentials = true;
      const done = () => {
        let response = null;
        try {
          if (!xhr.responseType || xhr.responseType === 'text') response = xhr.responseText;
          else if (xhr.responseType === 'json') response = xhr.response;
          else if (xhr.responseType === 'arraybuffer') response = xhr.response ? 'arraybuffer:' + xhr.response.byteLength : null;
          else if (xhr.responseType === 'blob') response = xhr.response ? 'blob:' + xhr.response.size + ':' + xhr.response.type : null;
          else if (xhr.responseType === 'document') response = xhr.response ? 'document:' + xhr.response.title : null;
        } catch (e) { response = 'error:' + e.name; }
        const all = xhr.getAllResponseHeaders();
        resolve({
          status: xhr.status, statusText: xhr.statusText, readyState: xhr.readyState,
          events: compact(events), response, responseURL: xhr.responseURL,
          echoHeader: xhr.getResponseHeader('X-Echo'), internalHeaders: /x-hybrid/i.test(all),
        });
      };
      xhr.addEventListener('loadend', () => setTimeout(done, 0));
      try {
        xhr.send(options.body);
      } catch (e) {
        resolve({ thrown: e.name + ': ' + e.message, events: compact(events) });
        return;
      }
      if (options.sync) done();
      if (options.abort) xhr.abort();
    });
  }

  async function fetchRequest(options) {
    const controller = new AbortController();
    const init = { method: options.method, headers: {}, signal: options.timeout ? AbortSignal.timeout(options.timeout) : controller.signal };
    if (options.header) init.headers['X-Test'] = options.header;
    if (options.contentType) init.headers['Content-Type'] = options.contentType;
    if (options.credentials) init.credentials = 'include';
    if (options.redirect) init.redirect = options.redirect;
    let input = options.url;
    if (options.asRequest) {
      input = new Request(options.url, { method: options.method, body: options.body, headers: init.headers });
    } else if (options.body !== undefined) {
      init.body = options.body;
      if (options.stream) init.duplex = 'half';
    }
    try {
      const pending = fetch(input, init);
      if (options.abort) controller.abort();
      const res = await pending;
      let response;
      if (options.readAs === 'stream') {
        const reader = res.body.getReader();
        let total = 0;
        for (;;) { const { done, value } = await reader.read(); if (done) break; total += value.byteLength; }
        response = 'stream:' + total;
      } else {
        response = await res.text();
      }
      const result = {
        status: res.status, statusText: res.statusText, url: res.url, redirected: res.redirected, response,
        echoHeader: res.headers.get('X-Echo'), internalHeaders: [...res.headers.keys()].some((k) => /x-hybrid/i.test(k)),
      };
      if (options.redirect) result.type = res.type;
      return result;
    } catch (e) {
      return { thrown: e.name };
    }
  }

  // Runs one body case through one API against `base` (the origin serving this page).
  async function runBody(name, api) {
    const made = bodies[name]();
    const method = made.method || 'POST';
    const options = { method, url: '/echo', body: made.body, header: 'conformance', stream: made.stream, asRequest: made.asRequest };
    if (api === 'xhr' && (made.stream || made.asRequest)) return { skipped: 'no such body for XMLHttpRequest' };
    const expected = made.expect ? await sha(made.expect) : null;
    const result = api === 'xhr' ? await xhrRequest(options) : await fetchRequest(options);
    if (typeof result.response === 'string' && result.response.startsWith('{')) {
      result.echo = JSON.parse(result.response);
      delete result.response;
    }
    result.expectedSHA = expected;
    return result;
  }

  const scenarios = {
    abort: (api) => (api === 'xhr' ? xhrRequest : fetchRequest)({ method: 'POST', url: '/echo', body: bodies.blob().body, abort: true }),
    timeout: (api) => (api === 'xhr' ? xhrRequest : fetchRequest)({ method: 'POST', url: '/slow', body: bodies.blob().body, timeout: 700 }),
    json: () => xhrRequest({ method: 'POST', url: '/echo', body: bodies.file().body, responseType: 'json' }),
    arraybuffer: () => xhrRequest({ method: 'POST', url: '/echo', body: bodies.file().body, responseType: 'arraybuffer' }),
    blobResponse: () => xhrRequest({ method: 'POST', url: '/echo', body: bodies.file().body, responseType: 'blob' }),
    document: () => xhrRequest({ method: 'GET', url: location.pathname, responseType: 'document' }),
    redirect307: (api) => runWith(api, { method: 'POST', url: '/redirect/307', body: bodies.blob_untyped().body }),
    redirect303: (api) => runWith(api, { method: 'POST', url: '/redirect/303', body: bodies.blob_untyped().body }),
    redirect302: (api) => runWith(api, { method: 'POST', url: '/redirect/302', body: bodies.blob_untyped().body }),
    redirect308: (api) => runWith(api, { method: 'POST', url: '/redirect/308', body: bodies.blob_untyped().body }),
    redirectManual: () => fetchRequest({ method: 'POST', url: '/redirect/307', body: bodies.blob_untyped().body, redirect: 'manual' }),
    redirectError: () => fetchRequest({ method: 'POST', url: '/redirect/307', body: bodies.blob_untyped().body, redirect: 'error' }),
    status404: (api) => runWith(api, { method: 'GET', url: '/status/404' }),
    stream: () => fetchRequest({ method: 'POST', url: '/echo', body: bodies.blob().body, readAs: 'stream' }),
    sync: () => xhrRequest({ method: 'POST', url: '/echo', body: bodies.file().body, sync: true }),
    syncString: () => xhrRequest({ method: 'POST', url: '/echo', body: 'sync', sync: true }),
    credentials: (api) => runWith(api, { method: 'POST', url: '/echo', body: bodies.file().body, credentials: true }),
    authorType: (api) => runWith(api, { method: 'POST', url: '/echo', body: bodies.blob().body, contentType: 'application/x-author' }),
    edges: (api) => (api === 'xhr' ? xhrEdges() : fetchEdges()),
  };

  // The API's edges a conformance suite probes (argument checks, states, method case, response type), each
  // reported as what happened, so the hooked run must read exactly as the engine's.
  const named = (run) => {
    try {
      const value = run();
      return value === undefined ? 'ok' : String(value);
    } catch (e) {
      return 'threw ' + e.name;
    }
  };
  const settled = async (run) => {
    let pending;
    try {
      pending = run();
    } catch (e) {
      return 'threw synchronously ' + e.name;
    }
    try {
      return 'resolved ' + String(await pending);
    } catch (e) {
      return 'rejected ' + e.name;
    }
  };
  const ended = (xhr) => new Promise((resolve) => {
    if (xhr.readyState === 4 || xhr.readyState === 0) resolve();
    else xhr.addEventListener('loadend', () => setTimeout(resolve, 0));
  });
  const echoed = (text) => {
    try {
      const echo = JSON.parse(text);
      return echo.method + ' ' + echo.length;
    } catch (e) {
      return 'not an echo';
    }
  };

  async function xhrEdges() {
    const probes = [];
    const fresh = () => new XMLHttpRequest();
    probes.push('header before open: ' + named(() => fresh().setRequestHeader('X-A', '1')));
    for (const [label, name, value] of [['bad name', 'bad name', '1'], ['bad value', 'X-A', 'a\nb'],
      ['empty name', '', '1']]) {
      const xhr = fresh();
      xhr.open('POST', '/echo');
      probes.push(label + ': ' + named(() => xhr.setRequestHeader(name, value)));
    }
    for (const method of ['CONNECT', 'trace', 'bad method', '']) {
      probes.push('open ' + JSON.stringify(method) + ': ' + named(() => fresh().open(method, '/echo')));
    }
    for (const method of ['patch', 'post', 'Delete', 'PROPFIND']) {
      const xhr = fresh();
      xhr.open(method, '/echo');
      xhr.send(method === 'Delete' ? null : 'abc');
      await ended(xhr);
      probes.push(method + ' sent as: ' + xhr.status + ' ' + echoed(xhr.responseText));
    }
    for (const body of ['abc', new Blob(['abc'])]) {
      const xhr = fresh();
      xhr.open('POST', '/echo', true, 'zoë', 'pa:ss');
      xhr.send(body);
      await ended(xhr);
      let authorization = 'not an echo';
      try { authorization = String(JSON.parse(xhr.responseText).authorization); } catch (e) {}
      probes.push('user and password with a ' + typeof body + ' body: ' + xhr.status + ' ' + authorization);
    }
    {
      const xhr = fresh();
      xhr.open('POST', '/echo');
      xhr.send(new Blob(['12345']));
      probes.push('header after send: ' + named(() => xhr.setRequestHeader('X-B', '1')));
      probes.push('second send: ' + named(() => xhr.send('again')));
      await ended(xhr);
      probes.push('first body arrived: ' + xhr.status + ' ' + echoed(xhr.responseText));
    }
    {
      const xhr = fresh();
      xhr.open('POST', '/echo');
      xhr.send('abc');
      probes.push('second send of a string: ' + named(() => xhr.send('again')));
      await ended(xhr);
      probes.push('string body arrived: ' + xhr.status + ' ' + echoed(xhr.responseText));
    }
    {
      const xhr = fresh();
      xhr.open('POST', '/echo');
      xhr.send(new Blob(['12345']));
      xhr.abort();
      probes.push('send after abort: ' + named(() => xhr.send('again')) + ', readyState ' + xhr.readyState);
      probes.push('header after abort: ' + named(() => xhr.setRequestHeader('X-C', '1')));
      probes.push('withCredentials after abort: ' + named(() => { xhr.withCredentials = true; }));
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    {
      const xhr = fresh();
      xhr.open('POST', '/echo');
      xhr.send(new Blob(['12345']));
      probes.push('withCredentials after send: ' + named(() => { xhr.withCredentials = true; }));
      await ended(xhr);
      probes.push('header names: ' + xhr.getAllResponseHeaders().split('\r\n').map((line) => line.split(':')[0])
        .filter((name) => name && name !== 'date').join(','));
      probes.push('overridden type: ' + named(() => xhr.overrideMimeType('text/plain')));
    }
    {
      const xhr = fresh();
      const events = [];
      xhr.open('POST', '/slow');
      for (const type of ['abort', 'loadend', 'error']) xhr.addEventListener(type, () => events.push(type + xhr.readyState));
      xhr.onreadystatechange = () => events.push('rsc' + xhr.readyState);
      xhr.send('abc');
      await new Promise((resolve) => setTimeout(resolve, 300));
      xhr.abort();
      probes.push('abort once sent: ' + events.join(',') + ' status ' + xhr.status + ' readyState ' + xhr.readyState);
    }
    return { response: probes.join(' | ') };
  }

  async function fetchEdges() {
    const probes = [];
    probes.push('init 5: ' + await settled(() => fetch('/echo', 5)));
    probes.push('init "x": ' + await settled(() => fetch('/echo', 'x')));
    probes.push('GET with a body: ' + await settled(() => fetch('/echo', { method: 'GET', body: 'x' })));
    probes.push('CONNECT: ' + await settled(() => fetch('/echo', { method: 'CONNECT' })));
    probes.push('bad method: ' + await settled(() => fetch('/echo', { method: 'bad method', body: 'x' })));
    for (const method of ['patch', 'post', 'PROPFIND']) {
      const response = await fetch('/echo', { method, body: 'abc' });
      probes.push(method + ' sent as: ' + response.status + ' ' + echoed(await response.text()));
    }
    const aborted = AbortSignal.abort();
    probes.push('already aborted: ' + await settled(() => fetch('/echo', { method: 'POST', body: new Blob(['x']), signal: aborted })));
    const stream = () => new ReadableStream({ start(c) { c.enqueue(new Uint8Array([1])); c.close(); } });
    // Fetch says TypeError; WebKit, which sends no stream bodies, says NotSupportedError: either refuses.
    const refused = (outcome) => outcome.replace(/rejected (TypeError|NotSupportedError)/, 'refused');
    probes.push('stream without duplex: ' +
      refused(await settled(() => fetch('/echo', { method: 'POST', body: stream() }))));
    probes.push('GET with a Blob: ' + await settled(() => fetch('/echo', { method: 'GET', body: new Blob(['x']) })));
    probes.push('beacon over the quota: ' +
      named(() => navigator.sendBeacon('/beacon', new URLSearchParams({ a: 'x'.repeat(70000) }))));
    probes.push('beacon of a stream: ' + named(() => navigator.sendBeacon('/beacon', stream())));
    probes.push('keepalive stream: ' + await settled(() => fetch('/echo', { method: 'POST', body: stream(), duplex: 'half', keepalive: true })));
    {
      const response = await fetch('/echo', { method: 'POST', body: new Blob(['abc']) });
      probes.push('header names: ' + [...response.headers.keys()].filter((name) => name !== 'date').join(','));
      await response.arrayBuffer();
      probes.push('bodyUsed after reading: ' + response.bodyUsed + ', clone: ' + named(() => response.clone()));
    }
    for (const [label, body] of [['string', 'abc'], ['blob', new Blob(['abc'])]]) {
      const response = await fetch('/echo', { method: 'POST', body });
      probes.push(label + ' answer: type ' + response.type + ', clone type ' + response.clone().type + ', ok ' +
        response.ok + ', bodyUsed ' + response.bodyUsed);
      await response.text();
    }
    return { response: probes.join(' | ') };
  }

  async function runWith(api, options) {
    const result = await (api === 'xhr' ? xhrRequest(options) : fetchRequest(options));
    if (typeof result.response === 'string' && result.response.startsWith('{')) {
      result.echo = JSON.parse(result.response);
      delete result.response;
    }
    return result;
  }

  window.results = {};
  window.conformance = {
    bodies: Object.keys(bodies),
    scenarios: Object.keys(scenarios),
    start(key, kind, name, api) {
      window.results[key] = null;
      const run = kind === 'body' ? runBody(name, api) : scenarios[name](api);
      run.then((r) => { window.results[key] = JSON.stringify(r); },
        (e) => { window.results[key] = JSON.stringify({ harnessError: String(e && e.stack || e) }); });
    },
    // Many small hooked POSTs in sequence (the 10,000-request leak check).
    async many(count, size) {
      const body = new Blob([bytes(size, 1)]);
      let ok = 0;
      for (let i = 0; i < count; i++) {
        const res = await fetch('/echo', { method: 'POST', body });
        if (res.ok) { await res.arrayBuffer(); ok++; }
      }
      return ok;
    },
  };
  // An iframe asked to run a case by its URL posts the result to its parent (cross-origin frames included).
  const auto = new URLSearchParams(location.search).get('auto');
  if (auto) {
    const [name, api] = auto.split(':');
    runBody(name, api).then((r) => parent.postMessage({ frame: location.href, result: JSON.stringify(r) }, '*'));
  }
})();
