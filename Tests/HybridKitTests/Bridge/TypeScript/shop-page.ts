// The shop's cart calls (Examples/Shop/Sources/Shop/web/app.js) in TypeScript, typed by the declarations
// `hybrid types` writes from the shop's Swift (Examples/Shop/types/modules.d.ts). ShopModuleTypesTests type-checks it
// against them with tsc: when the Swift module changes and the declarations are written again, this page stops
// checking wherever it no longer fits.
import type { Item, Summary } from './modules';

async function shop(): Promise<void> {
  // Typed by HybridModules (the generated file adds `cart`): no type argument, no string-typed call.
  const cart = hybrid.module('cart');
  const sencha: Item = { sku: 'sencha', price: 6.5 };
  await cart.add(sencha);
  const summary: Summary = await cart.add({ sku: 'oolong', price: 9 }, { timeout: 5000 });
  const count: number = summary.count;
  const total: string = summary.total.toFixed(2);
  const refused = await cart.add({ sku: '', price: -1 }).then(
    () => null,
    (error: unknown) => (error instanceof hybrid.HybridError ? error.code : 'unexpected'),
  );
  console.log(count, total, refused === 'bad_arguments');
}
void shop();
