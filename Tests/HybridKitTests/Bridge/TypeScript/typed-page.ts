// A page that uses every page-facing API HybridKit documents, typed with hybrid.d.ts. TypeDeclarationsTests copies
// it next to the declarations and runs `tsc --noEmit --strict` on both: it must type-check without a diagnostic.
import type {
  HybridBytes,
  HybridCallOptions,
  HybridError,
  HybridErrorCode,
  HybridModuleCatalog,
  HybridModuleProxy,
  HybridRecoveryReport,
  HybridRequestStrategy,
  HybridStream,
  HybridSynchronous,
  SetupWebViewJavascriptBridge,
  WebViewJavascriptBridge,
  WVJBCallback,
} from './hybrid';

interface DeviceInfo {
  model: string;
  battery: number;
}

async function bridge(): Promise<void> {
  const version: string = hybrid.version;
  const catalog: HybridModuleCatalog = await hybrid.ready;
  const methods: string[] | undefined = catalog['device'];
  const ready: boolean = hybrid.isReady;
  const modules: HybridModuleCatalog = window.hybrid.modules;

  const info = await hybrid.call<DeviceInfo>('device', 'info');
  const model: string = info.model;
  const options: HybridCallOptions = { timeout: 5000 };
  await hybrid.call('device', 'scan', { dpi: 300 }, options);
  void hybrid.call<DeviceInfo>('device', 'info', null, (error, result) => {
    if (error) console.log(error.code, error.message, error.details);
    else if (result) console.log(result.battery);
  });
  void hybrid.call('device', 'info', null, { timeout: 0 }, (error: HybridError | null) => console.log(error));

  try {
    await hybrid.call('device', 'nope');
  } catch (e) {
    if (e instanceof hybrid.HybridError) {
      const code: HybridErrorCode = e.code;
      if (code === 'unknown_method' || code === 'denied' || code === 'navigated') console.log(e.name, e.message);
    }
  }
  // Binary values: bytes anywhere in the arguments, an ArrayBuffer back.
  const photo: HybridBytes = new Blob([new Uint8Array([1, 2, 3])]);
  const parts: HybridBytes[] = [new ArrayBuffer(4), new Uint8Array(2), new DataView(new ArrayBuffer(1)), photo];
  const thumbnail = await hybrid.call<ArrayBuffer>('photos', 'thumbnail', { image: parts[0], extra: parts });
  const thumbnailBytes: number = thumbnail.byteLength;

  const made: HybridError = new hybrid.HybridError('internal', 'made by the page', { why: 'test' });

  const offBattery = hybrid.on<{ level: number }>('battery', (b) => console.log(b.level.toFixed(2)));
  offBattery();
  hybrid.on('ready', (all: HybridModuleCatalog) => console.log(Object.keys(all)));
  hybrid.on('error', (error: HybridError) => console.log(error.code));
  hybrid.on('restore', ({ persisted }) => console.log(persisted === true));
  hybrid.on('recovered', (report: HybridRecoveryReport) => {
    const reason: 'crashed' | 'memory' | 'terminated' | 'blank' = report.reason;
    console.log(reason, report.attempt, report.url ?? '', report.deferred);
  });
  const listener = (data: unknown) => console.log(data);
  hybrid.on('tick', listener);
  hybrid.off('tick', listener);
  hybrid.off('tick');

  const unhandle = hybrid.handle<{ dirty: boolean }, boolean>('confirmLeave', async ({ dirty }) => !dirty || confirm('Leave?'));
  hybrid.handle('sum', (data: number[]) => data.reduce((a, b) => a + b, 0));
  unhandle();
  console.log(version, methods, ready, modules, model, made, thumbnailBytes);
}

// The WebViewJavascriptBridge library's setup snippet, iframe included.
const setupWebViewJavascriptBridge: SetupWebViewJavascriptBridge = (callback: WVJBCallback) => {
  if (window.WebViewJavascriptBridge) {
    return callback(window.WebViewJavascriptBridge);
  }
  if (window.WVJBCallbacks) {
    window.WVJBCallbacks.push(callback);
    return;
  }
  window.WVJBCallbacks = [callback];
  const frame = document.createElement('iframe');
  frame.style.display = 'none';
  frame.src = 'https://__bridge_loaded__';
  document.documentElement.appendChild(frame);
  setTimeout(() => document.documentElement.removeChild(frame), 0);
};

setupWebViewJavascriptBridge((bridge: WebViewJavascriptBridge) => {
  bridge.disableJavscriptAlertBoxSafetyTimeout();
  bridge.registerHandler('JS Echo', (data, responseCallback) => responseCallback(data));
  bridge.registerHandler('JS Silent', (_data, responseCallback) => responseCallback());
  bridge.callHandler('ObjC Echo', { key: 'value' }, (response) => console.log(response));
  bridge.callHandler('ObjC Echo', (response) => console.log(response));
  bridge.callHandler('ObjC Echo', 'fire and forget');
  bridge.callHandler('ObjC Echo');
});

document.addEventListener('WebViewJavascriptBridgeReady', (event: Event) => {
  console.log(event.type, window.WebViewJavascriptBridge?.callHandler('ObjC Echo'));
});

async function cookiesAndRequests(): Promise<void> {
  // Custom-scheme pages: document.cookie is the jar's once this resolves.
  await window.hybridCookies?.ready;
  console.log(document.cookie);

  const requests = window.__hybridRequests;
  if (requests) {
    const strategy: HybridRequestStrategy = requests.strategy;
    const hooked: boolean = requests.enabled;
    requests.setEnabled(false);
    requests.setEnabled(true);
    const frame = document.createElement('iframe');
    document.body.appendChild(frame);
    if (frame.contentWindow) requests.hooksRealm(frame.contentWindow);
    console.log(strategy, hooked);
  }
}

void bridge();
void cookiesAndRequests();

// Synchronous calls, published state, `has`, and DSBridge's page API.
function synchronous(): void {
  const info: DeviceInfo = hybrid.callSync<DeviceInfo>('device', 'info');
  const battery: number = info.battery;
  const kind: 'sync' | 'async' | 'stream' | null = hybrid.has('device.info');
  const again = hybrid.has('device', 'info');
  const device = hybrid.state.get<DeviceInfo>('device');
  if (device) console.log(device.model, battery, kind, again);
  const names: string[] = hybrid.state.keys();
  const stop: () => void = hybrid.state.on<DeviceInfo>('device', (value) => console.log(value?.model, names));
  stop();
  const posted: Promise<void> = hybrid.post('checkout', { total: 3 });
  void posted.then(() => hybrid.post('done'));

  const sum: number = dsBridge.call<number>('addValue', [1, 2]);
  dsBridge.call('testAsyn', 'hi', (value) => console.log(value, sum));
  dsBridge.call('callProgress', (value) => console.log(value));
  dsBridge.register('addValue', (l: number, r: number) => l + r);
  dsBridge.register('syn', { tag: (s: string) => s });
  dsBridge.registerAsyn('append', (a: string, b: string, done: (data: any, complete?: boolean) => void) => done(a + b));
  const exists: boolean = window.dsBridge.hasNativeMethod('echo.syn', 'syn');
  dsBridge.disableJavascriptDialogBlock(exists);
}
synchronous();

async function streams(): Promise<void> {
  for await (const reading of hybrid.stream<{ celsius: number }>('sensors', 'temperature', { every: 100 })) {
    if (reading.celsius > 30) break;
  }
  await hybrid.stream<number>('sensors', 'count').forEach((n) => console.log(n.toFixed(0)));
}
void streams();

// Typed module proxies: a description of the module's methods, as a page writes it by hand (`hybrid types` writes
// one from the app's Swift and adds it to HybridModules).
interface CartItem {
  sku: string;
  price: number;
}
interface CartSummary {
  count: number;
  total: number;
}
interface Cart {
  add(item: CartItem): Promise<CartSummary>;
  clear(): Promise<null>;
  peek(): HybridSynchronous<CartSummary>;
  watch(filter: { atLeast: number }): HybridStream<CartSummary>;
  note(text?: string): boolean;
}
declare module './hybrid' {
  interface HybridModules {
    cart: Cart;
  }
}

async function proxies(): Promise<void> {
  const cart: HybridModuleProxy<Cart> = hybrid.module<Cart>('cart');
  const summary: CartSummary = await cart.add({ sku: 'sencha', price: 6.5 });
  const timed: CartSummary = await cart.add({ sku: 'oolong', price: 9 }, { timeout: 2000 });
  const cleared: null = await cart.clear();
  const now: CartSummary = cart.peek.sync();
  const later: CartSummary = await cart.peek();
  for await (const change of cart.watch.stream({ atLeast: 2 })) console.log(change.total.toFixed(2));
  const noted: boolean = (await cart.note()) && (await cart.note('gift'));
  // Typed by HybridModules, without a type argument; awaiting a proxy gives the proxy (it has no `then`).
  const same: HybridModuleProxy<Cart> = await hybrid.module('cart');
  console.log(summary, timed, cleared, now, later, noted, same === cart);
}
void proxies();
