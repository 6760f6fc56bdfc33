// HybridKit request hooks: POST <form> submission to this page's origin (the submit event, the engine's `formdata`
// event when a page kept the submit event from the hooks, and HTMLFormElement.prototype.submit).
// Part of the body of `install(win, parentPageURL)`, which hooks one realm: see core.js for how RequestHooksScript
// joins HooksRuntime/ into one closure. Not a script on its own; it uses from the shared scope:
//   `win`; from core.js P; from page.js orig, resolved, vouches; from upload.js multipart, upload, discard, crlf.

// Native cannot read a form's body safely (see KEY_HEADER in core.js), so every POST form to this page's own origin
// on the custom scheme uploads its body first, serialised as the engine would for its enctype, and an empty
// carrier form sends the request tagged with the body's id. Whatever the hook switches say: without this the
// form would lose its body.

// The form's own settings, read through getters kept from the prototype: a field named `action`, `method`, `target`
// or `enctype` (WordPress forms carry a hidden `action`) hides the property of that name on the form.
const formSettings = {};
for (const name of ['action', 'method', 'enctype', 'target']) {
  formSettings[name] = Object.getOwnPropertyDescriptor(win.HTMLFormElement.prototype, name).get;
}
const formSetting = (form, name) => formSettings[name].call(form);

// Where and how `form` would be sent, or null when it is not a POST to this page's own origin. A submitter's own
// attribute (formaction, formmethod, formenctype, formtarget) wins, read through its reflected property, as the
// engine normalises it (an empty `formmethod` is GET).
function formPlan(form, submitter) {
  const setting = (attribute, property, name) =>
    (submitter && submitter.hasAttribute(attribute) ? submitter[property] : formSetting(form, name));
  if (setting('formmethod', 'formMethod', 'method') !== 'post') return null;
  const action = setting('formaction', 'formAction', 'action');
  if (!vouches(resolved(action))) return null;
  return {
    action,
    enctype: setting('formenctype', 'formEnctype', 'enctype'),
    target: setting('formtarget', 'formTarget', 'target'),
  };
}

// The entries the engine would send for `form` submitted by `submitter`: without the submitter when it left the
// form since it was clicked (a framework re-rendered it), as the engine's entry list then is.
function entriesOf(form, submitter) {
  if (!submitter) return new win.FormData(form);
  try {
    return new win.FormData(form, submitter);
  } catch (e) {
    return new win.FormData(form);
  }
}

// The query item that tags a carrier form's request with its body's id (the scheme handler takes it out before the
// request goes on). Added to and taken from the query as text: URLSearchParams would write the page's `%20` as `+`
// and change what the server reads.
const BODY_QUERY_ITEM = '__hybrid_body';

// `search` (a URL's `?…`, or '') without the tag's items, every other byte as it was.
function withoutBodyTag(search) {
  if (search.length < 2) return search;
  const items = search.slice(1).split('&');
  const kept = items.filter((item) => item !== BODY_QUERY_ITEM && !item.startsWith(BODY_QUERY_ITEM + '='));
  if (kept.length === items.length) return search;
  return kept.length ? '?' + kept.join('&') : '';
}

// The answer to a carrier form is shown under the URL its request went to, tag included. Taken out before any page
// script runs, so the page reads the URL its form named, as with the engine, and a URL it builds from it names no
// spent body (that request would be refused). The engine then reloads the answer with a GET of that URL, as it
// reloads any form's answer.
(() => {
  if (!intercepted || href.indexOf('?') < 0) return;
  try {
    const url = new P.URL(href);
    const stripped = withoutBodyTag(url.search);
    if (stripped === url.search) return;
    url.search = stripped;
    win.history.replaceState(win.history.state, '', url.href);
  } catch (e) {
    win.console.warn('HybridKit: the form answer\'s URL keeps its body tag: ' + (e && e.message || e));
  }
})();

// The submission each form has under way, so that a later one replaces it as in the engine (a page's submit listener
// that calls form.submit(), say): only the last one sends, and the bodies of the others are dropped.
const latestSubmission = new WeakMap();

// Sends `entries` (a FormData) as `form` would go, by id, unless another submission of the form comes first.
function submitHooked(form, plan, entries) {
  const token = {};
  latestSubmission.set(form, token);
  const current = () => latestSubmission.get(form) === token;
  (async () => {
    // A task first: a submit() the page calls right after this one replaces it before anything is uploaded.
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (!current()) return;
    const { blob, type } = await formBody(form, entries, plan.enctype);
    const id = await upload(blob, type, undefined, () => {}, () => {});
    if (!current()) return discard(id);
    const target = new URL(plan.action, win.document.baseURI);
    // Replaced, not added: a page that is itself the answer to a form may post to its own URL, which named a spent id.
    const query = withoutBodyTag(target.search);
    target.search = (query ? query + '&' : '?') + BODY_QUERY_ITEM + '=' + id;
    const carrier = win.document.createElement('form');
    carrier.method = 'post';
    carrier.action = target.href;
    if (plan.target) carrier.target = plan.target;
    carrier.style.display = 'none';
    (win.document.body || win.document.documentElement).appendChild(carrier);
    orig.submit.call(carrier);
    // Its submission holds what it needs; the element would stay in document.forms of a page that stays.
    setTimeout(() => carrier.remove(), 0);
  })().catch((error) => win.console.error('HybridKit: form submission failed: ' + (error && error.message || error)));
}

// A form's body as the engine encodes it for `enctype` (files by name outside multipart, as the engine does), its
// names and values in the form's encoding.
async function formBody(form, data, enctype) {
  const encode = inFormEncoding(form);
  if (enctype === 'multipart/form-data') return multipart(data, encode);
  // Line breaks as CRLF in names and values, as form submission writes them.
  const entries = [...data].map(([name, value]) => [crlf(name), crlf(typeof value === 'string' ? value : value.name)]);
  if (enctype === 'text/plain') {
    const lines = entries.map(([name, value]) => name + '=' + value + '\r\n');
    return { blob: new win.Blob(encode ? lines.map(encode) : lines), type: 'text/plain' };
  }
  const text = encode
    ? entries.map(([name, value]) => formURLEncoded(encode(name)) + '=' + formURLEncoded(encode(value))).join('&')
    : new win.URLSearchParams(entries).toString();
  return { blob: new win.Blob([text]), type: 'application/x-www-form-urlencoded' };
}

// ---- Forms in a legacy encoding ----
// The engine writes a form's names and values in the form's encoding (HTML's "picking an encoding for the form": the
// first encoding `accept-charset` names, else the document's), UTF-8 on most pages. `inFormEncoding(form)` is null for
// UTF-8, else a function that writes text as the engine would. Only the document's own encoding can be written
// (the engine's URL parser writes it, below): a form asking for another goes as UTF-8, and the console says so.
function inFormEncoding(form) {
  const own = P.lower(win.document.characterSet);
  let chosen = own;
  const accept = win.Element.prototype.getAttribute.call(form, 'accept-charset');
  for (const label of (accept || '').trim().split(/\s+/)) {
    if (!label) continue;
    try {
      chosen = new win.TextDecoder(label).encoding;
      break;
    } catch (e) { /* not an encoding: the next label */ }
  }
  if (chosen === 'utf-8' || chosen === 'utf-16le' || chosen === 'utf-16be' || chosen === 'replacement') return null;
  if (chosen !== own) {
    win.console.warn('HybridKit: a form asks for ' + chosen + ' and its page is ' + own +
      '; the request hooks write only the page\'s encoding: sent as UTF-8. Serve the page in ' + chosen +
      ' or drop accept-charset.');
    return null;
  }
  return inDocumentEncoding;
}

// `text` as bytes in the document's encoding, characters it cannot write as `&#N;` (as form submission writes
// them): the engine's own encoder, reached through the URL parser, which writes an http URL's query in the
// document's encoding. ASCII is the same in every encoding a form can use, so only the rest goes through it.
const encodingAnchor = win.document.createElement('a');
function inDocumentEncoding(text) {
  let escaped = '';
  for (const character of text) {
    const code = character.codePointAt(0);
    escaped += code < 0x80 ? '%' + (code < 0x10 ? '0' : '') + code.toString(16) : character;
  }
  encodingAnchor.href = 'http://encoding.invalid/?' + escaped;
  // Percent-encoded bytes, and the digits of a `&#N;` the encoder wrote as they are.
  const query = encodingAnchor.search.slice(1);
  const bytes = [];
  for (let i = 0; i < query.length; i++) {
    if (query[i] === '%') {
      bytes.push(parseInt(query.substr(i + 1, 2), 16));
      i += 2;
    } else {
      bytes.push(query.charCodeAt(i));
    }
  }
  return new Uint8Array(bytes);
}

// application/x-www-form-urlencoded's byte serializer (what URLSearchParams does to UTF-8 bytes).
function formURLEncoded(bytes) {
  let out = '';
  for (const byte of bytes) {
    const character = String.fromCharCode(byte);
    if (/[A-Za-z0-9*\-._]/.test(character)) out += character;
    else if (byte === 0x20) out += '+';
    else out += '%' + (byte < 0x10 ? '0' : '') + byte.toString(16).toUpperCase();
  }
  return out;
}

// The submit event, watched from its first listener (capture, on window or a shadow root) to its last:
//   - the hooks decide when it comes back up to where they watch it, after every listener the page put there (a
//     listener added to a target during dispatch runs when the event next reaches it): a page that cancelled it in
//     any listener (preventDefault, returnValue, `onsubmit` returning false) is left alone; otherwise the hooks
//     cancel it and submit by id;
//   - a page listener that stops its propagation keeps it from coming back up: the engine then submits the form
//     itself, building its entry list (the `formdata` event below), and that is where the hooks take it over.
const submitEvents = new WeakMap();
const preventEvent = win.Event.prototype.preventDefault;

function watchSubmissions(root) {
  root.addEventListener('submit', (event) => {
    // A page's own `new Event('submit')` never makes the engine submit anything.
    if (!event.isTrusted) return;
    const form = event.target;
    const watch = { event, submitter: event.submitter, hooked: false };
    submitEvents.set(form, watch);
    const decide = (last) => {
      if (last !== event) return;
      root.removeEventListener('submit', decide);
      if (!event.defaultPrevented) takeOver(form, watch);
    };
    root.addEventListener('submit', decide);
    setTimeout(() => {
      root.removeEventListener('submit', decide);
      if (submitEvents.get(form) === watch) submitEvents.delete(form);
    }, 0);
  }, true);

  root.addEventListener('formdata', (event) => {
    const form = event.target;
    const watch = submitEvents.get(form);
    // Only the engine's own submission after a trusted submit event the hooks did not see to its end (its dispatch
    // is over, it was not cancelled): `new FormData(form)` fires formdata too, during the dispatch or without one.
    if (!watch || watch.hooked || watch.event.eventPhase !== 0 || watch.event.defaultPrevented) return;
    submitEvents.delete(form);
    let plan;
    try {
      plan = formPlan(form, watch.submitter);
    } catch (e) {
      return;
    }
    if (!plan) return;
    // The engine submits a form only while it is in its document, and checks that once the entry list is built: out
    // of it for the rest of this task, its own submission is dropped (a task, not a microtask: after a real click,
    // microtasks run between listeners, before that check). The form is back in its place at the next task, but the
    // engine then holds it as still submitting: only this path costs that, for pages that keep the submit event
    // from the hooks.
    const placeholder = win.document.createComment('');
    form.replaceWith(placeholder);
    setTimeout(() => {
      if (placeholder.isConnected && !form.isConnected) placeholder.replaceWith(form);
      else placeholder.remove();
    }, 0);
    submitHooked(form, plan, event.formData);
  }, true);
}

// The submit event came back up uncancelled: the hooks cancel it and submit by id. Anything that throws on the way
// (a page's odd form) leaves the event to the engine, uncancelled.
function takeOver(form, watch) {
  let plan;
  let entries;
  try {
    plan = formPlan(form, watch.submitter);
    if (!plan) return;
    // Before the entries: building them fires formdata, which the listener above must not take for the engine's.
    watch.hooked = true;
    entries = entriesOf(form, watch.submitter);
  } catch (e) {
    watch.hooked = false;
    return;
  }
  preventEvent.call(watch.event);
  submitHooked(form, plan, entries);
}

// Submit and formdata events do not leave a shadow tree: each shadow root a page makes is watched as the window is,
// once.
watchSubmissions(win);
const watchedRoots = new WeakSet();
function watchRoot(root) {
  if (watchedRoots.has(root)) return;
  watchedRoots.add(root);
  watchSubmissions(root);
}
const attachShadow = win.Element.prototype.attachShadow;
if (attachShadow) {
  win.Element.prototype.attachShadow = function () {
    const root = attachShadow.apply(this, arguments);
    watchRoot(root);
    return root;
  };
}

// A declarative shadow root (`<template shadowrootmode>`, as server-rendered components ship) is made by the parser,
// without attachShadow: the open ones are found once the document is parsed, nested ones included. A closed one
// cannot be reached from outside, and one a script parses later (setHTMLUnsafe) is not looked for.
const shadowRootOf = Object.getOwnPropertyDescriptor(win.Element.prototype, 'shadowRoot').get;
function watchDeclarativeRoots(node) {
  for (const element of node.querySelectorAll('*')) {
    const root = shadowRootOf.call(element);
    if (!root) continue;
    watchRoot(root);
    watchDeclarativeRoots(root);
  }
}
if (win.document.readyState === 'loading') {
  win.document.addEventListener('DOMContentLoaded', () => watchDeclarativeRoots(win.document), { once: true });
}

win.HTMLFormElement.prototype.submit = function () {
  // The engine submits nothing for a form outside this window's document (its own submit() does nothing there).
  if (!this.isConnected || this.ownerDocument !== win.document) return orig.submit.apply(this, arguments);
  const plan = formPlan(this, null);
  if (!plan) return orig.submit.apply(this, arguments);
  let entries;
  try {
    entries = new win.FormData(this);
  } catch (e) {
    return undefined; // called from the form's own formdata listener: the engine ignores that too
  }
  // new FormData(form) fired formdata with no submit event before it: the listener above left it alone.
  submitHooked(this, plan, entries, null);
  return undefined;
};
