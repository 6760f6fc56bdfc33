// Type declarations for HybridKit's page runtime (`window.hybrid`) and its WebViewJavascriptBridge shim.
// Ship this file with your H5 project (or reference it with /// <reference path="hybrid.d.ts" />).

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
  /** Resolves with the module catalog once the native side is ready. */
  readonly ready: Promise<HybridModuleCatalog>;
  readonly isReady: boolean;
  readonly modules: HybridModuleCatalog;
  /** The class of bridge errors, for `instanceof` checks. */
  readonly HybridError: new (code: HybridErrorCode, message: string, details?: unknown) => HybridError;
}

/** WebViewJavascriptBridge's API, for existing H5 code. */
export interface WebViewJavascriptBridge {
  registerHandler(name: string, handler: (data: any, responseCallback: (response?: any) => void) => void): void;
  callHandler(name: string, data?: any, responseCallback?: (response: any) => void): void;
  callHandler(name: string, responseCallback: (response: any) => void): void;
  disableJavscriptAlertBoxSafetyTimeout(): void;
}

declare global {
  interface Window {
    readonly hybrid: Hybrid;
    readonly WebViewJavascriptBridge: WebViewJavascriptBridge;
    WVJBCallbacks?: Array<(bridge: WebViewJavascriptBridge) => void>;
  }
  const hybrid: Hybrid;
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
