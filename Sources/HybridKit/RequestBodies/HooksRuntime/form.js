// HybridKit request hooks: POST <form> submission to this page's origin (the engine's own submission, seen through
// its `formdata` event, and HTMLFormElement.prototype.submit).
// Part of the body of `install(win, parentPageURL)`, which hooks one realm: see core.js for how RequestHooksScript
// joins HooksRuntime/ into one closure. Not a script on its own; it uses from the shared scope:
//   `win`; from page.js orig, resolved, vouches; from upload.js serialize, upload.

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

// Sends `entries` (a FormData) as `form` would go, by id. `entries` is read a task later: the engine's entry list
// is still open to the page's own formdata listeners when the hooks take it.
function submitHooked(plan, entries) {
  (async () => {
    await new Promise((resolve) => setTimeout(resolve, 0));
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
  const entries = [...data].map(([name, value]) => [name, typeof value === 'string' ? value : value.name]);
  if (enctype === 'text/plain') {
    const text = entries.map(([name, value]) => name + '=' + value + '\r\n').join('');
    return { blob: new win.Blob([text]), type: 'text/plain' };
  }
  return { blob: new win.Blob([new win.URLSearchParams(entries).toString()]),
    type: 'application/x-www-form-urlencoded' };
}

// The hooks do not decide on the submit event: a page listener after them may still cancel it (a window listener,
// an `onsubmit` returning false), and one before them may stop its propagation. The engine builds the form's entry
// list, firing `formdata` at the form, only once the submit event was dispatched and not cancelled; that is where
// the hooks take the submission over. `formdata` also fires for `new FormData(form)`: only the one that follows a
// finished, uncancelled submit event of the same form, in the same task, is the engine's submission.
const submitEvents = new WeakMap();
win.addEventListener('submit', (event) => {
  // A page's own `new Event('submit')` never makes the engine submit anything.
  if (!event.isTrusted) return;
  const form = event.target;
  submitEvents.set(form, { event, submitter: event.submitter });
  setTimeout(() => {
    const pending = submitEvents.get(form);
    if (pending && pending.event === event) submitEvents.delete(form);
  }, 0);
}, true);

win.addEventListener('formdata', (event) => {
  const form = event.target;
  const pending = submitEvents.get(form);
  if (!pending || pending.event.eventPhase !== 0 || pending.event.defaultPrevented) return;
  submitEvents.delete(form);
  const plan = formPlan(form, pending.submitter);
  if (!plan) return;
  // The engine submits a form only while it is in its document, and checks that once the entry list is built: out
  // of it for the rest of this task, the form's own submission is dropped. A task, not a microtask: after a real
  // click, microtasks run between listeners, before the engine's check. The page is usually leaving anyway.
  const parent = form.parentNode;
  const next = form.nextSibling;
  form.remove();
  setTimeout(() => {
    if (!form.isConnected && parent && (!next || next.parentNode === parent)) parent.insertBefore(form, next);
  }, 0);
  submitHooked(plan, event.formData);
}, true);

win.HTMLFormElement.prototype.submit = function () {
  const plan = formPlan(this, null);
  // new FormData(form) fires formdata with no submit event before it: the listener above leaves it alone.
  if (!plan) return orig.submit.apply(this, arguments);
  submitHooked(plan, new win.FormData(this));
  return undefined;
};
