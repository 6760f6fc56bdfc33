// HybridKit bridge runtime. Injected at document start into every frame. It is the files of BridgeRuntime/, none a
// script on its own: BridgeRuntimeScript joins them, in its order, and wraps them as
//   (function (config) { <transport.js> <bytes.js> <calls.js> <streams.js> <sync.js> <state.js> <receive.js> <proxies.js>
//     <api.js> <wvjb.js> <dsbridge.js> })(<config JSON>);
// so they share one closure's variables, and nothing here leaks into the page's global scope except `window.hybrid`
// (and the WVJB and DSBridge shims). This file comes first: it takes the built-ins and handlers the runtime uses
// before any page script runs, and holds the transport every other file sends through. (It calls failAll, from
// calls.js, and dispatch, from receive.js, only once messages flow, after every file ran.)
//
// Wire format, page → native (strings posted to a script message handler):
//   "H1 <kind> <id> <token> <frame> <origin> <module> <method>\n<JSON payload>"
// A space-separated head that is cheap to parse natively, then the payload bytes that native decodes
// straight into the method's argument type. The main frame sends the messages of one turn in one post,
// separated by newlines; subframes send one message per post (each post has its own reply).
// Synchronous calls (`hybrid.callSync`, `hybrid.has`, DSBridge's `call` without a callback) are one prompt():
//   "H1sync <sync key>\n" + the same head and payload; the prompt returns {"ok":…,"r"|"e":…} as JSON text.
// On WebKitGTK the web-process extension's __hybridFrameSync makes the prompt, stamped with the frame; elsewhere
// the engine names the frame of a prompt itself (WKWebView). The page's main thread waits for the answer.
// Native → page: `receiver(["<delivery key>", "<JSON array of messages>"])`, one evaluation per batch in the main
// frame, or the reply of a reply-capable handler in subframes. The batch is JSON text parsed here (never
// JavaScript source, where a "__proto__" key would set a prototype), so every frame reads the same data the
// same way; the key proves the evaluation came from native, since the page can call the receiver too.

'use strict';

if (window.hybrid && window.hybrid.__runtime === config.runtimeId) return;

// Taken before any page script runs: a page that replaces JSON.parse or a handler's postMessage later must
// not see or forge what passes between this runtime and native.
const parseJSON = JSON.parse;
const setPrototypeOf = Object.setPrototypeOf;
const applyFunction = Reflect.apply;
const handlers = window.webkit && window.webkit.messageHandlers;
const mainHandler = handlers && handlers[config.handler];
const replyHandler = handlers && handlers[config.replyHandler];
const mainPost = mainHandler && mainHandler.postMessage;
const replyPost = replyHandler && replyHandler.postMessage;
// On WebKitGTK, HybridKit's web-process extension defines __hybridFramePost in every frame: it posts like the
// handlers above, but stamped with the frame's real URI, so a frame cannot pose as another. Taken here,
// before any page script runs, and removed from the page's reach.
const framePost = typeof window.__hybridFramePost === 'function' ? window.__hybridFramePost : null;
if (framePost) delete window.__hybridFramePost;
// The synchronous channel, taken the same way; without the extension, the prompt function as it is now
// (before the page could replace it and read what passes).
const frameSync = typeof window.__hybridFrameSync === 'function' ? window.__hybridFrameSync : null;
if (frameSync) delete window.__hybridFrameSync;
const nativePrompt = window.prompt;
const stringify = JSON.stringify;
const canPostMain = Boolean(framePost || mainHandler);
const canPostWithReply = Boolean(framePost || replyHandler);

function postMain(text) {
  if (framePost) framePost(config.handler, text);
  else applyFunction(mainPost, mainHandler, [text]);
}

function postWithReply(text) {
  if (!framePost) return applyFunction(replyPost, replyHandler, [text]);
  return new Promise((resolve, reject) => {
    framePost(config.replyHandler, text, (reply) => {
      try {
        resolve(parseJSON(reply));
      } catch (e) {
        reject(e);
      }
    });
  });
}
const isMainFrame = window === window.top;
const origin = String(location.origin);
// The security origin the engine applies (`null` for a sandboxed frame, whatever its URL), read before any
// page script runs: published state is kept or dropped by it.
const securityOrigin = String(self.origin);
const token = Array.from(crypto.getRandomValues(new Uint8Array(8)), (b) => b.toString(16).padStart(2, '0')).join('');
const NAME = /^[A-Za-z_$][\w$.-]{0,63}$/;
// WebViewJavascriptBridge handler names are any text ('ObjC Echo'); native takes up to 128 bytes, no controls.
const FREE_FORM_NAME = /^[^\u0000-\u001f\u007f-\u009f]{1,128}$/;

/** An error from the bridge. `code` says which kind: see hybrid.d.ts. */
class HybridError extends Error {
  constructor(code, message, details) {
    super(message);
    this.name = 'HybridError';
    this.code = code;
    if (details !== undefined) this.details = details;
  }
}

let nextId = 1;
let state = 'connecting'; // → 'ready'; 'closed' after pagehide
let modules = {};
const pending = new Map(); // id → { resolve, reject, deadline, what }
const queued = []; // messages written before the native side said ready
const listeners = new Map(); // event name → Set of functions
const jsHandlers = new Map(); // name → function(data) → value | Promise

function head(kind, id, module, method) {
  return `H1 ${kind} ${id} ${token} ${isMainFrame ? 'main' : 'sub'} ${origin} ${module} ${encodeURIComponent(method)}\n`;
}

// Main-frame messages written in the same turn leave together. The first message of a turn goes at once
// (a lone call pays nothing); later ones wait for the microtask checkpoint and leave in one post, joined by
// newlines (JSON.stringify never writes a raw newline, so they cannot be confused). Batches stay under
// 1 MB: one giant post costs more to copy and parse than a few medium ones.
const maxBatchLength = Math.min(config.maxMessageLength, 1 << 20);
let outgoing = [];
let outgoingLength = 0;
let turnOpen = false;

function flushOutgoing() {
  if (!outgoing.length) return;
  const text = outgoing.join('\n');
  outgoing = [];
  outgoingLength = 0;
  postMain(text);
}

function transmit(text) {
  if (isMainFrame && canPostMain) {
    if (!turnOpen) {
      turnOpen = true;
      queueMicrotask(() => {
        turnOpen = false;
        flushOutgoing();
      });
      postMain(text);
      return;
    }
    if (outgoingLength + text.length + 1 > maxBatchLength) flushOutgoing();
    outgoing.push(text);
    outgoingLength += text.length + 1;
  } else if (canPostWithReply) {
    postWithReply(text).then(dispatch, (error) => failAll('internal', `bridge transport failed: ${error && error.message}`));
  } else {
    throw new HybridError('internal', 'the native bridge is not available in this frame');
  }
}

function send(text) {
  if (state === 'ready') transmit(text);
  else queued.push(text);
}
