// Type declarations for HybridKit's page runtime (`window.hybrid`), its WebViewJavascriptBridge shim, the
// `document.cookie` shim of custom-scheme pages (`window.hybridCookies`) and the request hooks
// (`window.__hybridRequests`). Ship this file with your H5 project (or reference it with
// /// <reference path="hybrid.d.ts" />). HybridKitTests type-checks it, and a page using every API, with tsc --strict.

/** What went wrong with a bridge call. */
export type HybridErrorCode =
  /** The message could not be read: malformed, too large or too deeply nested. */
  | 'bad_message'
  /** No native module has this name. */
  | 'unknown_module'
  /** The module has no method with this name. */
  | 'unknown_method'
  /** The arguments do not match what the native method expects (or cannot be serialised). */
  | 'bad_arguments'
  /** This page's origin, or this frame, may not call the module. */
  | 'denied'
  /** The native method failed; details are in the native log. */
  | 'internal'
  /** No answer in time (the page's timeout or the native method's). */
  | 'timeout'
  /** The page navigated away while the call was pending. */
  | 'navigated'
  /** The native bridge was torn down while the call was pending. */
  | 'closed';

/** The error every failed bridge call rejects with. */
export interface HybridError extends Error {
  readonly name: 'HybridError';
  readonly code: HybridErrorCode;
  readonly details?: unknown;
}

export interface HybridCallOptions {
  /** Milliseconds to wait before rejecting with `timeout`; 0 waits forever. Defaults to the native setting. */
  timeout?: number;
}

// Binary values ---------------------------------------------------------------------------------------------------
/**
 * Bytes a page passes anywhere in `hybrid.call`'s arguments (at any depth of plain objects and arrays): each
 * arrives natively as one `Data`, uploaded with the call's other bytes in one request, never as base64 or JSON. A
 * `Data` in native's answers (a call's result, a stream's element, an event's data) arrives as an `ArrayBuffer`.
 * Not in `callSync` or `stream` arguments (`bad_arguments`). Limits: `BridgeLimits.maxBinaryBytes` per call.
 */
export type HybridBytes = ArrayBuffer | ArrayBufferView | Blob;
// -----------------------------------------------------------------------------------------------------------------

/** Node-style callback for the callback form of `call`. */
export type HybridCallback<T> = (error: HybridError | null, result?: T) => void;

/** Module name → its method names, as the native side registered them. */
export type HybridModuleCatalog = Record<string, string[]>;

export interface Hybrid {
  /** Runtime version. */
  readonly version: string;
  /**
   * Calls a native method. Resolves with its result, or rejects with a HybridError.
   * Calls made before the bridge is ready are queued and sent when it is.
   * Arguments must survive `JSON.stringify`.
   */
  call<T = unknown>(module: string, method: string, args?: unknown, options?: HybridCallOptions): Promise<T>;
  call<T = unknown>(module: string, method: string, args: unknown, callback: HybridCallback<T>): Promise<T>;
  call<T = unknown>(module: string, method: string, args: unknown, options: HybridCallOptions, callback: HybridCallback<T>): Promise<T>;
  /**
   * Listens for a native event. Many listeners per event are allowed. Built-in events:
   * `ready` (the module catalog) and `error` (a HybridError the native side could not attribute to a call).
   * Returns a function that removes the listener.
   */
  on(event: 'ready', listener: (modules: HybridModuleCatalog) => void): () => void;
  on(event: 'error', listener: (error: HybridError) => void): () => void;
  /** The page came back from the back/forward cache (its scripts did not run again); the bridge works again. */
  on(event: 'restore', listener: (info: { persisted: true }) => void): () => void;
  /** Sent by HybridContainer when the page was reloaded after a white screen, so it can restore its state. */
  on(event: 'recovered', listener: (report: HybridRecoveryReport) => void): () => void;
  on<T = unknown>(event: string, listener: (data: T) => void): () => void;
  /** Removes one listener, or every listener of the event when none is given. */
  off(event: string, listener?: (data: any) => void): void;
  /**
   * Registers a handler native code can call. Its return value (or the value its promise resolves with)
   * is the answer; a throw becomes a HybridError on the native side. Returns a function that removes it.
   */
  handle<A = unknown, R = unknown>(name: string, handler: (data: A) => R | Promise<R>): () => void;
  /**
   * Calls a native method declared `synchronous` and returns its result in the same turn, or throws a HybridError
   * (`timeout` past the native limit, `denied` for a method not declared synchronous). The page's main thread is
   * blocked for the whole round trip (a prompt() the host never shows): prefer `call`, or `state` for values.
   */
  callSync<T = unknown>(module: string, method: string, args?: unknown): T;
  /**
   * Posts a message the host awaits with `container.messages(name)`, without a module of its own. Resolves once
   * native took it; rejects (a HybridError, `denied`) when the container's `pageMessages` rule refuses this
   * frame's origin or frame. The value must be JSON.
   */
  post(name: string, value?: unknown): Promise<void>;
  /**
   * How this frame may call a native method, asked synchronously: `'sync'` (declared synchronous: both ways),
   * `'async'`, `'stream'`, or `null` when it does not exist or this frame may not call it.
   */
  /**
   * Reads a native stream method. Native reads its sequence only as fast as the page consumes (a window of
   * elements ahead at most). Any other method reads as a one-element stream.
   */
  stream<T = unknown>(module: string, method: string, args?: unknown): HybridStream<T>;
  // Typed module proxies.
  /**
   * A typed proxy of native module `name`: `hybrid.module('cart').add(item)` is `hybrid.call('cart', 'add', item)`,
   * `.peek.sync(args)` is `hybrid.callSync`, `.count.stream(args)` is `hybrid.stream`. Typed by the module's entry in
   * `HybridModules` (which `hybrid types` writes from the app's Swift), or by a description of your own:
   * `hybrid.module<Cart>('cart')`. It reaches nothing `hybrid.call` does not; `then`, `toJSON` and the names
   * Object.prototype has are never methods of it (call such a method with `hybrid.call`).
   */
  module<K extends keyof HybridModules & string>(name: K): HybridModuleProxy<HybridModules[K]>;
  module<T>(name: string): HybridModuleProxy<T>;
  has(name: `${string}.${string}`): HybridMethodKind | null;
  has(module: string, method: string): HybridMethodKind | null;
  /** Values native publishes, readable synchronously from document start in the frames the module's access allows. */
  readonly state: HybridState;
  /** Resolves with the module catalog once the native side is ready. */
  readonly ready: Promise<HybridModuleCatalog>;
  readonly isReady: boolean;
  readonly modules: HybridModuleCatalog;
  /** The class of bridge errors, for `instanceof` checks. */
  readonly HybridError: new (code: HybridErrorCode, message: string, details?: unknown) => HybridError;
}

/** How a page may call a native method. */
export type HybridMethodKind = 'sync' | 'async' | 'stream';

/**
 * A native stream (`hybrid.stream`): iterate it with `for await`, or pass a callback to `forEach`. Leaving the loop
 * early (`break`, `return`, a throw) cancels the native side; the native end or error ends the loop the same way.
 */
export interface HybridStream<T> extends AsyncIterableIterator<T> {
  /** Calls `fn` with each element; resolves when the stream ends, rejects with its HybridError. */
  forEach(fn: (value: T) => void): Promise<void>;
}

// Typed module proxies (`hybrid.module`).

/**
 * The app's native modules by name, each with its description (see `HybridModuleProxy`): empty here. `hybrid types`
 * writes a file that adds the app's modules to it, so `hybrid.module('cart')` is typed without a type argument.
 */
export interface HybridModules {}

declare const hybridSynchronous: unique symbol;
/**
 * In a module's description, the result of a method native declared `synchronous: true`: its proxy offers `.sync`
 * besides the call (`peek(): HybridSynchronous<Summary>`).
 */
export interface HybridSynchronous<R> {
  readonly [hybridSynchronous]: R;
}

/** Names a proxy never treats as methods: `await` reads `then`, JSON.stringify `toJSON`, and Object.prototype's own. */
export type HybridReservedName =
  | 'then' | 'toJSON' | 'constructor' | 'toString' | 'toLocaleString' | 'valueOf' | 'hasOwnProperty'
  | 'isPrototypeOf' | 'propertyIsEnumerable' | '__proto__' | '__defineGetter__' | '__defineSetter__'
  | '__lookupGetter__' | '__lookupSetter__';

/** A method's call: its one argument (none, `null`, for a method that takes `NoArguments`) and call options. */
export type HybridProxyCall<P extends unknown[], R> = P extends []
  ? (args?: null, options?: HybridCallOptions) => Promise<R>
  : P extends [infer A]
    ? (args: A, options?: HybridCallOptions) => Promise<R>
    : P extends [(infer A)?]
      ? (args?: A, options?: HybridCallOptions) => Promise<R>
      : never;

/** A member of a module's proxy, from its description `(args: A) => R`: see `HybridModuleProxy`. */
export type HybridProxyMethod<P extends unknown[], R> = [R] extends [HybridStream<infer E>]
  ? { readonly stream: (...args: P) => HybridStream<E> }
  : [R] extends [HybridSynchronous<infer V>]
    ? HybridProxyCall<P, V> & { readonly sync: (...args: P) => V }
    : HybridProxyCall<P, Awaited<R>>;

/**
 * What `hybrid.module` returns for a module described by `T`, an interface with one method per native method, taking
 * its argument (or nothing) and returning its result:
 *
 *     interface Cart {
 *       add(item: Item): Promise<Summary>;            // cart.add(item): Promise<Summary>
 *       peek(): HybridSynchronous<Summary>;           // cart.peek(): Promise<Summary>, cart.peek.sync(): Summary
 *       watch(filter: Filter): HybridStream<Summary>; // cart.watch.stream(filter): HybridStream<Summary>
 *     }
 */
export type HybridModuleProxy<T> = {
  readonly [K in keyof T as K extends HybridReservedName ? never : K extends string ? K : never]: T[K] extends (
    ...args: infer P
  ) => infer R
    ? HybridProxyMethod<P, R>
    : never;
};

/** Published native state (`hybrid.state`). Values are frozen: copy one to change it. */
export interface HybridState {
  /** The current value of `name`, or undefined when nothing this frame may read is published under it. */
  get<T = unknown>(name: string): Readonly<T> | undefined;
  /** The names this frame can read now. */
  keys(): string[];
  /** Calls `listener` whenever `name` changes (undefined when withdrawn). Returns a function that removes it. */
  on<T = unknown>(name: string, listener: (value: Readonly<T> | undefined) => void): () => void;
}

/** DSBridge's answer callback for `registerAsyn` methods: `complete: false` marks a progress answer. */
export type DSBridgeResponse = (data: any, complete?: boolean) => void;

/** DSBridge's page API (`window.dsBridge`), for existing H5 code. */
export interface DSBridge {
  /**
   * Without a callback: a synchronous call (the native method must be declared `synchronous`), returning its value.
   * With one: an asynchronous call; `callback` gets the value later. `'ns.method'` calls module `ns`.
   */
  call(method: string, callback: (value: any) => void): void;
  call(method: string, args: any, callback: (value: any) => void): void;
  call<T = any>(method: string, args?: any): T;
  /** A JavaScript method (or a namespace object of them) native can call. */
  register(name: string, fn: ((...args: any[]) => any) | Record<string, (...args: any[]) => any>): void;
  /** An asynchronous JavaScript method: it answers through the callback DSBridge appends to its arguments. */
  registerAsyn(
    name: string,
    fn: ((...args: any[]) => void) | Record<string, (...args: any[]) => void>,
  ): void;
  /** Whether native has `name`; `type` 'syn' asks for a synchronous method, 'asyn' or 'all' for any. */
  hasNativeMethod(name: string, type?: 'all' | 'syn' | 'asyn'): boolean;
  /** Remembered for compatibility: dialogs never hold up the bridge here. */
  disableJavascriptDialogBlock(disable?: boolean): void;
}

/** Answers a WebViewJavascriptBridge call: what the caller's `responseCallback` receives. */
export type WVJBResponseCallback = (response?: any) => void;

/** A JavaScript handler native code can call by name (`callJavaScript`). */
export type WVJBHandler = (data: any, responseCallback: WVJBResponseCallback) => void;

/** WebViewJavascriptBridge's API, for existing H5 code. */
export interface WebViewJavascriptBridge {
  /** Registers a handler native code can call; it answers through `responseCallback`. */
  registerHandler(name: string, handler: WVJBHandler): void;
  /** Calls a native handler (a method of the `wvjb` module, under any name) with no data. */
  callHandler(name: string, responseCallback: (response: any) => void): void;
  /** Calls a native handler (a method of the `wvjb` module, under any name). */
  callHandler(name: string, data?: any, responseCallback?: (response: any) => void): void;
  /** Present for compatibility: alerts never block the bridge, so there is nothing to disable. */
  disableJavscriptAlertBoxSafetyTimeout(): void;
}

/** What the page's `setupWebViewJavascriptBridge` queues in `window.WVJBCallbacks` until the bridge appears. */
export type WVJBCallback = (bridge: WebViewJavascriptBridge) => void;

/** The library's page-side setup function (pages define it themselves; its queue and iframe are supported). */
export type SetupWebViewJavascriptBridge = (callback: WVJBCallback) => void;

/** `document.cookie` on custom-scheme pages (`window.hybridCookies`, injected by `DocumentCookieBridge`). */
export interface HybridCookies {
  /** Resolves once the jar's cookies for this page have arrived (one bridge round trip after the document starts). */
  readonly ready: Promise<void>;
}

/** Boot confirmation of offline packages (`window.hybridPackages`, injected by `BootSafety`). */
export interface HybridPackages {
  /**
   * Tells native the page booted. A newly activated package version stays on trial until its page calls this;
   * one that never does within the deadline, whose web process dies or which renders blank is rolled back.
   */
  ready(): Promise<void>;
}

/** How the request hooks handle the page's requests. */
export type HybridRequestStrategy = 'off' | 'bodyByID' | 'fullProxy';

/** The request hooks of this page (`window.__hybridRequests`, on pages of hooked schemes). */
export interface HybridRequests {
  /** Whether this page's requests are hooked now (switched on by native, by the page, and not degraded). */
  readonly enabled: boolean;
  /** The strategy in force: 'off' when the hooks are off. */
  readonly strategy: HybridRequestStrategy;
  /** Switches this page's own hooks off (and back on). */
  setEnabled(on: boolean): void;
  /** Hooks another window of this page (e.g. a frame it made) as this page. */
  hooksRealm(child: Window): void;
}

declare global {
  interface Window {
    readonly hybrid: Hybrid;
    /** Absent while the page's first scripts run; it appears once the document is parsed. */
    readonly WebViewJavascriptBridge?: WebViewJavascriptBridge;
    WVJBCallbacks?: WVJBCallback[];
    /** DSBridge's page API (unless the host turned DSBridge compatibility off). */
    dsBridge: DSBridge;
    /** Only on custom-scheme pages with the document.cookie shim. */
    readonly hybridCookies?: HybridCookies;
    /** Only on package pages of a container with boot safety. */
    readonly hybridPackages?: HybridPackages;
    /** Only on pages of a hooked scheme. */
    readonly __hybridRequests?: HybridRequests;
  }
  interface DocumentEventMap {
    /** The older WebViewJavascriptBridge signal: dispatched on `document` when the bridge appears. */
    WebViewJavascriptBridgeReady: Event;
  }
  const hybrid: Hybrid;
  /** DSBridge's page API (unless the host turned DSBridge compatibility off). */
  const dsBridge: DSBridge;
}

/** What a page hears after a white-screen recovery (`hybrid.on('recovered', …)`). */
export interface HybridRecoveryReport {
  /** Why the page was reloaded. */
  reason: 'crashed' | 'memory' | 'terminated' | 'blank';
  /** 1 for the first attempt of a series. */
  attempt: number;
  url?: string;
  /** The page died while hidden and was reloaded when shown. */
  deferred: boolean;
}
