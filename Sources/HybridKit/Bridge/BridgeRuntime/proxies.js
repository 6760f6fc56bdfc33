// HybridKit bridge runtime: typed module proxies (`hybrid.module(name)`), a method per property:
//   hybrid.module('cart').add(item, options)   is hybrid.call('cart', 'add', item, options)
//   hybrid.module('cart').peek.sync(args)      is hybrid.callSync('cart', 'peek', args)
//   hybrid.module('feed').count.stream(args)   is hybrid.stream('feed', 'count', args)
// A proxy reaches nothing `hybrid.call` does not; what must hold is that it only ever means that. So it never reads
// a prototype (a page's script that adds `Object.prototype.add` cannot answer for native, nor set a trap of its
// handler), `then` is never a method (`await hybrid.module('x')` must not call native `then`), and neither are the
// names Object.prototype had before any page script ran (`toString`, `constructor`, …), `toJSON` (JSON.stringify
// would call it) or symbols (Symbol.toPrimitive, Symbol.iterator): those methods stay reachable through
// `hybrid.call`.
// Part of the bridge runtime's closure: see transport.js for how BridgeRuntimeScript joins BridgeRuntime/. Not a script
// on its own; it uses from the shared scope:
//   from transport.js NAME, FREE_FORM_NAME; from calls.js call; from streams.js openStream; from sync.js callSync.

// Taken before any page script runs, like the built-ins transport.js keeps.
const ProxyConstructor = Proxy;
const createRecord = Object.create;
const freezeObject = Object.freeze;
const definePropertyOf = Object.defineProperty;
const notMethods = createRecord(null);
for (const key of Object.getOwnPropertyNames(Object.prototype)) notMethods[key] = true;
notMethods.then = true;
notMethods.toJSON = true;

// One proxy per module name, and one function per method of it: `hybrid.module('cart').add === …add`.
const moduleProxies = createRecord(null);

function methodOf(module, method) {
  // Only an options object goes on: a function there would become call()'s callback, which the types never offer.
  const invoke = (args, options) =>
    call(module, method, args, typeof options === 'object' && options !== null ? options : undefined);
  // Descriptors without a prototype: defineProperty reads `get`, `writable`, `configurable` from them, inherited
  // ones too, so a page's `Object.prototype.get` would otherwise break or reshape these properties.
  definePropertyOf(invoke, 'name', { __proto__: null, value: method });
  const sync = (args) => callSync(module, method, args);
  const stream = (args) => openStream(module, method, args);
  definePropertyOf(invoke, 'sync', { __proto__: null, value: sync, enumerable: true });
  definePropertyOf(invoke, 'stream', { __proto__: null, value: stream, enumerable: true });
  return freezeObject(invoke);
}

/** A proxy of native module `name`: each property is a method of it (see the top of this file). */
function moduleProxy(name) {
  const module = String(name);
  if (!NAME.test(module)) throw new TypeError(`invalid module name: ${module}`);
  if (moduleProxies[module]) return moduleProxies[module];
  const methods = createRecord(null);
  // Prototype-free and frozen, target and handler alike: Proxy looks each trap up on its handler, so a handler
  // that inherited from Object.prototype would take any trap a page script added there.
  const handler = createRecord(null);
  handler.get = (target, key) => {
    if (typeof key !== 'string' || notMethods[key] === true) return undefined;
    if (!methods[key]) methods[key] = methodOf(module, key);
    return methods[key];
  };
  const proxy = new ProxyConstructor(freezeObject(createRecord(null)), freezeObject(handler));
  moduleProxies[module] = proxy;
  return proxy;
}
