// document.cookie for pages served through HybridKit's custom scheme (injected at document start, all frames).
//
// The engine keeps no cookies for a custom-scheme page, so this getter/setter gives the page the cookies of the
// http(s) URL it stands for, from the native cookie jar:
// - The getter is synchronous and the bridge is not, so it answers from a local copy: the jar's document.cookie
//   string for this frame's URL as native last sent it, with this document's own writes laid over it until native
//   confirms them. Native keeps the copy current with a long poll: `read` answers at once when the jar's string
//   differs from the one the page holds, else when the jar changes (or after a while, and the page asks again).
//   The first copy arrives one bridge round trip after the document starts: `hybridCookies.ready` resolves then.
// - The setter applies the write locally at once (what a browser would: same name replaced, expired ones removed,
//   HttpOnly or another site's Domain never shown) and sends it to native, which checks it against the frame's
//   origin as the engine reports it (not this script's word) and answers with the jar's string after the write.
//
// Wrapped as `(function (config) { <this file> })(<config JSON>)` by DocumentCookieBridge.
'use strict';

if (location.protocol !== config.scheme + ':') return;
if (Object.prototype.hasOwnProperty.call(document, 'cookie')) return; // installed twice: keep the first

const bridge = window.hybrid;
if (!bridge || typeof bridge.call !== 'function') return; // no bridge in this frame: nothing to talk to

let confirmed = null; // the jar's string for this URL as native last sent it (null: not yet)
// Tells this document's reads from another frame's: native holds responses until every frame has acknowledged the
// jar's latest string (its next read), so a fetch never resolves before document.cookie shows what it set.
const documentToken = Math.random().toString(36).slice(2) + Date.now().toString(36);
const pending = []; // this document's writes native has not answered yet, oldest first
let view = '';
let markReady;
const ready = new Promise((resolve) => { markReady = resolve; });

function pairs(text) {
  if (!text) return [];
  return text.split('; ').map((pair) => {
    const eq = pair.indexOf('=');
    return eq < 0 ? ['', pair] : [pair.slice(0, eq), pair.slice(eq + 1)];
  });
}

function render() {
  const list = pairs(confirmed || '');
  for (const write of pending) {
    if (!write.visible) continue;
    const at = list.findIndex(([name]) => name === write.name);
    if (write.remove) {
      if (at >= 0) list.splice(at, 1);
    } else if (at >= 0) {
      list[at] = [write.name, write.value];
    } else {
      list.push([write.name, write.value]);
    }
  }
  view = list.map(([name, value]) => (name === '' ? value : name + '=' + value)).join('; ');
}

// What the write does to this document's view, by the rules the jar applies for real (RFC 6265bis §5.6).
function parseWrite(text) {
  const parts = text.split(';');
  const first = parts[0];
  const eq = first.indexOf('=');
  const name = eq < 0 ? '' : first.slice(0, eq).trim();
  const value = (eq < 0 ? first : first.slice(eq + 1)).trim();
  let remove = false;
  let visible = true;
  let maxAgeSeen = false;
  for (const attribute of parts.slice(1)) {
    const at = attribute.indexOf('=');
    const key = (at < 0 ? attribute : attribute.slice(0, at)).trim().toLowerCase();
    const arg = at < 0 ? '' : attribute.slice(at + 1).trim();
    if (key === 'httponly') visible = false;
    else if (key === 'max-age' && /^-?\d+$/.test(arg)) {
      maxAgeSeen = true;
      remove = Number(arg) <= 0;
    } else if (key === 'expires' && !maxAgeSeen) {
      const when = Date.parse(arg);
      if (!Number.isNaN(when)) remove = when <= Date.now();
    } else if (key === 'domain' && arg) {
      const domain = arg.replace(/^\./, '').toLowerCase();
      const host = location.hostname.toLowerCase();
      if (host !== domain && !host.endsWith('.' + domain)) visible = false;
    } else if (key === 'path' && arg.startsWith('/')) {
      const path = location.pathname;
      if (!(path === arg || path.startsWith(arg.endsWith('/') ? arg : arg + '/'))) visible = false;
    }
  }
  if (name === '' && value === '') visible = false;
  return { name, value, remove, visible };
}

function call(method, args, options) {
  return bridge.call(config.module, method, args, options || {});
}

function write(text) {
  const entry = parseWrite(text);
  pending.push(entry);
  render();
  const settle = (answer) => {
    const at = pending.indexOf(entry);
    if (at >= 0) pending.splice(at, 1);
    if (answer && typeof answer.cookie === 'string') confirmed = answer.cookie;
    render();
  };
  call('write', { url: location.href, cookie: text }).then(settle, () => settle(null));
}

async function poll() {
  for (;;) {
    try {
      // No page-side deadline: native answers within its poll timeout.
      const answer = await call('read', { url: location.href, known: confirmed, document: documentToken },
        { timeout: 0 });
      if (answer && typeof answer.cookie === 'string') {
        confirmed = answer.cookie;
        render();
      }
      markReady();
    } catch (error) {
      if (error && error.code === 'closed') return;
      markReady();
      // 'navigated' can reach a fresh document whose first call raced the commit of its own navigation.
      await new Promise((resolve) => setTimeout(resolve, error && error.code === 'navigated' ? 0 : 1000));
    }
  }
}

Object.defineProperty(document, 'cookie', {
  configurable: true,
  enumerable: true,
  get() { return view; },
  set(text) { write(String(text)); },
});
Object.defineProperty(window, 'hybridCookies', {
  value: Object.freeze({ ready }),
  writable: false,
  configurable: false,
  enumerable: false,
});
poll();
