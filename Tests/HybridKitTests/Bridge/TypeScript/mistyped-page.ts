// Deliberate mistakes, one per line marked `// error`: TypeDeclarationsTests expects tsc to report each of them,
// which shows that the type check can fail and that hybrid.d.ts is strict where it should be.
import type {
  HybridErrorCode,
  HybridRequestStrategy,
  HybridStream,
  HybridSynchronous,
  WebViewJavascriptBridge,
} from './hybrid';

async function mistakes(bridge: WebViewJavascriptBridge): Promise<void> {
  await hybrid.call(42, 'info'); // error
  hybrid.on('recovered', (report) => report.reason === 'exploded'); // error
  const code: HybridErrorCode = 'oops'; // error
  hybrid.handle('x', 'not a function'); // error
  window.hybrid = hybrid; // error
  await window.hybridCookies.ready; // error
  window.__hybridRequests?.setEnabled('no'); // error
  const strategy: HybridRequestStrategy = 'anchors'; // error
  bridge.registerHandler('JS Echo', (data: unknown, respond: number) => respond); // error
  bridge.callHandler(); // error
  window.WebViewJavascriptBridge.callHandler('ObjC Echo'); // error
  hybrid.nope(); // error
  hybrid.callSync('device', 'info', {}, 'extra'); // error
  hybrid.has('noDot'); // error
  hybrid.post(); // error
  const posted: string = hybrid.post('done'); // error
  hybrid.state.set('device', 1); // error
  dsBridge.hasNativeMethod('echo.syn', 'sometimes'); // error
  hybrid.stream<number>('sensors', 'count').forEach((n: string) => n); // error
  console.log(code, strategy, posted);
}

// Typed module proxies.
interface Cart {
  add(item: { sku: string; price: number }): Promise<{ count: number }>;
  peek(): HybridSynchronous<number>;
  watch(): HybridStream<number>;
  then(): void;
}
async function proxies(): Promise<void> {
  const cart = hybrid.module<Cart>('cart');
  await cart.add({ sku: 'sencha' }); // error
  const total: string = (await cart.add({ sku: 'sencha', price: 1 })).count; // error
  cart.add.sync({ sku: 'sencha', price: 1 }); // error
  cart.peek.sync(1); // error
  cart.watch(); // error
  cart.then; // error
  hybrid.module('undescribed').anything(); // error
  hybrid.module(7); // error
  console.log(total);
}

void mistakes;
void proxies;
