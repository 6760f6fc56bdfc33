// The bridge tour: each check exercises one capability and reports pass/fail to native
// (module `tour`) and to the table on the page.
'use strict';

const expected = new Set();
let failures = 0;

function show(name, ok, detail) {
  const row = document.createElement('tr');
  row.innerHTML = `<td></td><td class="${ok ? 'pass' : 'fail'}">${ok ? 'pass' : 'FAIL'}</td><td></td>`;
  row.cells[0].textContent = name;
  row.cells[2].textContent = detail;
  document.querySelector('#results tbody').appendChild(row);
}

async function report(name, ok, detail = '') {
  expected.delete(name);
  if (!ok) failures++;
  show(name, ok, detail);
  await hybrid.call('tour', 'report', { name, ok: !!ok, detail: String(detail) });
}

async function check(name, body) {
  try {
    const [ok, detail] = await body();
    await report(name, ok, detail);
  } catch (error) {
    await report(name, false, `${error && error.code}: ${error && error.message}`);
  }
}

async function expectCode(promise, code) {
  try {
    const value = await promise;
    return [false, `resolved with ${JSON.stringify(value)}`];
  } catch (error) {
    return [error instanceof hybrid.HybridError && error.code === code, `${error.code}: ${error.message}`];
  }
}

function waitFor(predicate, ms = 5000) {
  return new Promise((resolve, reject) => {
    const started = Date.now();
    (function poll() {
      if (predicate()) return resolve();
      if (Date.now() - started > ms) return reject(new Error('timed out waiting'));
      setTimeout(poll, 10);
    })();
  });
}

async function tour() {
  const modules = await hybrid.ready;
  const config = await hybrid.call('demo', 'config', null);

  await check('call before ready is queued, then answered', async () => {
    const value = await window.earlyCall.promise;
    return [window.earlyCall.wasReady === false && value === 42, `ready at call time: ${window.earlyCall.wasReady}, result ${value}`];
  });
  await check('ready event with module catalog', async () => [Array.isArray(modules.demo) && modules.demo.includes('add'), Object.keys(modules).join(',')]);
  await check('caller frame and origin verified by the engine', async () => {
    const me = await hybrid.call('demo', 'whoami');
    return [me.verified === true && me.mainFrame === true && me.origin === location.origin, JSON.stringify(me)];
  });
  await check('promise call returns result', async () => {
    const sum = await hybrid.call('demo', 'add', { a: 2, b: 3 });
    return [sum === 5, `2 + 3 = ${sum}`];
  });
  await check('callback form', () => new Promise((resolve) => {
    hybrid.call('demo', 'echo', { text: 'héllo ✓' }, (error, value) => resolve([error === null && value.text === 'héllo ✓', JSON.stringify(value)]));
  }));
  await check('error: unknown module', () => expectCode(hybrid.call('nope', 'x'), 'unknown_module'));
  await check('error: unknown method', () => expectCode(hybrid.call('demo', 'nope'), 'unknown_method'));
  await check('error: bad arguments', () => expectCode(hybrid.call('demo', 'add', { a: 'two' }), 'bad_arguments'));
  await check('error: native failure is internal', () => expectCode(hybrid.call('demo', 'fail'), 'internal'));
  await check('error: denied origin', () => expectCode(hybrid.call('partner', 'info'), 'denied'));
  await check('error: native timeout', () => expectCode(hybrid.call('demo', 'slowNative', { ms: 2000 }), 'timeout'));
  await check('error: page timeout', () => expectCode(hybrid.call('demo', 'sleep', { ms: 2000 }, { timeout: 100 }), 'timeout'));
  await check('error: unserialisable arguments', () => {
    const cyclic = {};
    cyclic.self = cyclic;
    return expectCode(hybrid.call('demo', 'echo', cyclic), 'bad_arguments');
  });
  await check('forwarding to another module', async () => {
    const sum = await hybrid.call('demo', 'legacyAdd', { a: 40, b: 2 });
    return [sum === 42, `demo.legacyAdd → math.add = ${sum}`];
  });
  await check('shared page context', async () => {
    await hybrid.call('demo', 'setTitle', { title: 'Tour' });
    const title = await hybrid.call('math', 'pageTitle');
    return [title === 'Tour', `math read "${title}" set by demo`];
  });
  await check('events reach many listeners, batched', async () => {
    const seen = { a: [], b: [] };
    const offA = hybrid.on('tick', (d) => seen.a.push(d.n));
    const offB = hybrid.on('tick', (d) => seen.b.push(d.n));
    await hybrid.call('demo', 'emitTicks', { count: 5 });
    await waitFor(() => seen.a.length === 5 && seen.b.length === 5);
    // How the five events and the result left native, counted there.
    const batch = await hybrid.call('demo', 'tickBatch');
    offB();
    await hybrid.call('demo', 'emitTicks', { count: 1 });
    await waitFor(() => seen.a.length === 6);
    offA();
    return [seen.b.length === 5 && seen.a.join() === '0,1,2,3,4,0' && batch.batched === true, `listener a: ${seen.a}, b: ${seen.b}; ${batch.detail}`];
  });
  await check('native calls a page handler', async () => {
    const off = hybrid.handle('sum', (numbers) => numbers.reduce((a, b) => a + b, 0));
    const total = await hybrid.call('demo', 'askPage', { handler: 'sum', data: [1, 2, 3, 4] });
    off();
    return [total === 10, `page summed to ${total}`];
  });
  await check('WebViewJavascriptBridge: callHandler', () => new Promise((resolve) => {
    function setupWebViewJavascriptBridge(callback) {
      if (window.WebViewJavascriptBridge) return callback(WebViewJavascriptBridge);
      (window.WVJBCallbacks = window.WVJBCallbacks || []).push(callback);
    }
    setupWebViewJavascriptBridge((bridge) => bridge.callHandler('greet', { name: 'Ada' }, (response) => resolve([response && response.greeting === 'Hello, Ada', JSON.stringify(response)])));
  }));
  await check('WebViewJavascriptBridge: registerHandler', async () => {
    WebViewJavascriptBridge.registerHandler('shout', (data, respond) => respond(String(data.text).toUpperCase()));
    const answer = await hybrid.call('demo', 'askPage', { handler: 'shout', data: { text: 'quiet' } });
    return [answer === 'QUIET', `native got "${answer}"`];
  });

  // Frames: a same-origin and a cross-origin iframe report through postMessage.
  const frameNames = ['same-origin', 'cross-origin'].flatMap((label) => [`${label}: call`, `${label}: main-frame-only module denied`, `${label}: event relayed`, `${label}: frame verified`]);
  for (const name of frameNames) expected.add(name);
  const readyFrames = new Set();
  window.addEventListener('message', (event) => {
    if (event.data && event.data.frameReady) readyFrames.add(event.data.frameReady);
    const r = event.data && event.data.frameReport;
    if (r && expected.has(r.name)) report(r.name, r.ok, r.detail);
  });
  document.getElementById('same').src = 'frame.html?label=same-origin';
  document.getElementById('cross').src = `${config.crossOrigin}/bridge/frame.html?label=cross-origin`;
  try {
    await waitFor(() => readyFrames.size === 2, 10000);
    await hybrid.call('demo', 'emitTicks', { count: 1 });
    await waitFor(() => expected.size === 0, 10000);
  } catch (_) {
    for (const name of Array.from(expected)) await report(name, false, 'no report from the frame');
  }
  document.getElementById('summary').textContent = failures === 0 ? 'all capabilities pass' : `${failures} failed`;
  await hybrid.call('tour', 'done', { failures });
}

tour().catch((error) => hybrid.call('tour', 'done', { failures: -1, error: String(error && error.message) }));
