// HybridKit request hooks: POST <form> submission to this page's origin (the submit event, the engine's `formdata`
// event when a page kept the submit event from the hooks, and HTMLFormElement.prototype.submit).
// Part of the body of `install(win, parentPageURL)`, which hooks one realm: see core.js for how RequestHooksScript
// joins HooksRuntime/ into one closure. Not a script on its own; it uses from the shared scope:
//   `win`; from page.js orig, resolved, vouches; from upload.js serialize, upload, crlf.

// Native cannot read a form's body safely (see KEY_HEADER in core.js), so every POST form to this page's own origin
// on the custom scheme uploads its body first, serialised as the engine would for its enctype, and an empty
// carrier form sends the request tagged with the body's id. Whatever the hook switches say: without this the
// form would lose its body.

// Where and how `form` would be sent, or null when it is not a POST to this page's own origin.
function formPlan(form, submitter) {
  const method = (submitter && submitter.getAttribute('formmethod')) || form.method;
  if (String(method).toLowerCase() !== 'post') return null;
  const action = submitter && submitter.hasAttribute('formaction') ? submitter.formAction : form.action;
  if (!vouches(resolved(action))) return null;
  return {
    action,
    enctype: ((submitter && submitter.getAttribute('formenctype')) || form.enctype).toLowerCase(),
    target: (submitter && submitter.getAttribute('formtarget')) || form.target,
  };
}

// The submission each form has under way, so that a later one in the same task replaces it as in the engine (a
// page's submit listener that calls form.submit(), say): only the last one sends.
const latestSubmission = new WeakMap();

// Sends `entries` (a FormData) as `form` would go, by id, a task from now unless `cancelled()` says otherwise by
// then (a page listener that runs after the hooks may still cancel) or another submission of the form came since.
function submitHooked(form, plan, entries, cancelled) {
  const token = {};
  latestSubmission.set(form, token);
  (async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (latestSubmission.get(form) !== token || (cancelled && cancelled())) return;
    const { blob, type } = await formBody(entries, plan.enctype);
    const id = await upload(blob, type, undefined, () => {}, () => {});
    const target = new URL(plan.action, win.document.baseURI);
    target.searchParams.append('__hybrid_body', id);
    const carrier = win.document.createElement('form');
    carrier.method = 'post';
    carrier.action = target.href;
    carrier.target = plan.target;
    carrier.style.display = 'none';
    win.document.body.appendChild(carrier);
    orig.submit.call(carrier);
  })().catch((error) => win.console.error('HybridKit: form submission failed: ' + (error && error.message || error)));
}

// A form's body as the engine encodes it for `enctype` (files by name outside multipart, as the engine does).
async function formBody(data, enctype) {
  if (enctype === 'multipart/form-data') return serialize(data, 'formdata');
  // Line breaks as CRLF in names and values, as form submission writes them.
  const entries = [...data].map(([name, value]) => [crlf(name), crlf(typeof value === 'string' ? value : value.name)]);
  if (enctype === 'text/plain') {
    const text = entries.map(([name, value]) => name + '=' + value + '\r\n').join('');
    return { blob: new win.Blob([text]), type: 'text/plain' };
  }
  return { blob: new win.Blob([new win.URLSearchParams(entries).toString()]),
    type: 'application/x-www-form-urlencoded' };
}

// The submit event, watched from its first listener (capture, on window) for what page code does to it later:
//   - the hooks cancel it in their bubbling listener on window and submit by id; a page listener on window that runs
//     after them and cancels it (preventDefault, returnValue) still cancels: the hooks wait a task before sending;
//   - a page listener that stops its propagation keeps it from that listener: the engine then submits the form
//     itself, building its entry list (the `formdata` event below), and that is where the hooks take it over.
const submitEvents = new WeakMap();
const preventEvent = win.Event.prototype.preventDefault;

function watchSubmissions(root) {
  root.addEventListener('submit', (event) => {
    // A page's own `new Event('submit')` never makes the engine submit anything.
    if (!event.isTrusted) return;
    const form = event.target;
    const watch = { event, submitter: event.submitter, hooked: false, pageCancelled: false };
    submitEvents.set(form, watch);
    const own = (name, value) => Object.defineProperty(event, name, { configurable: true, value });
    own('preventDefault', function preventDefault() {
      watch.pageCancelled = true;
      return preventEvent.call(this);
    });
    Object.defineProperty(event, 'returnValue', {
      configurable: true,
      get() { return !this.defaultPrevented; },
      set(value) { if (!value) this.preventDefault(); },
    });
    setTimeout(() => {
      if (submitEvents.get(form) === watch) submitEvents.delete(form);
    }, 0);
  }, true);

  root.addEventListener('submit', (event) => {
    const watch = submitEvents.get(event.target);
    if (!watch || watch.event !== event || event.defaultPrevented) return;
    const form = event.target;
    const plan = formPlan(form, watch.submitter);
    if (!plan) return;
    watch.hooked = true;
    preventEvent.call(event);
    // Built now, as the engine would have right after this event: a page that clears the form after submitting it
    // (in a later listener or a timer) must not send the cleared form.
    const entries = watch.submitter ? new win.FormData(form, watch.submitter) : new win.FormData(form);
    submitHooked(form, plan, entries, () => watch.pageCancelled);
  });

  root.addEventListener('formdata', (event) => {
    const form = event.target;
    const watch = submitEvents.get(form);
    // Only the engine's own submission after a trusted submit event the hooks did not see to its end (its dispatch
    // is over, it was not cancelled): `new FormData(form)` fires formdata too, during the dispatch or without one.
    if (!watch || watch.hooked || watch.event.eventPhase !== 0 || watch.event.defaultPrevented) return;
    submitEvents.delete(form);
    const plan = formPlan(form, watch.submitter);
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
    submitHooked(form, plan, event.formData, null);
  }, true);
}

// Submit and formdata events do not leave a shadow tree: each shadow root a page makes is watched as the window is.
// (A declarative shadow root, parsed from the HTML, is made without attachShadow and is not seen.)
watchSubmissions(win);
const attachShadow = win.Element.prototype.attachShadow;
if (attachShadow) {
  win.Element.prototype.attachShadow = function () {
    const root = attachShadow.apply(this, arguments);
    watchSubmissions(root);
    return root;
  };
}

win.HTMLFormElement.prototype.submit = function () {
  const plan = formPlan(this, null);
  if (!plan) return orig.submit.apply(this, arguments);
  // The engine submits nothing for a form outside a document, nor while it is building the form's entry list.
  if (!this.isConnected) return undefined;
  let entries;
  try {
    entries = new win.FormData(this);
  } catch (e) {
    return undefined;
  }
  // new FormData(form) fired formdata with no submit event before it: the listener above left it alone.
  submitHooked(this, plan, entries, null);
  return undefined;
};
