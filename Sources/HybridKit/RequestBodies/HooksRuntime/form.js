// HybridKit request hooks: POST <form> submission to this page's origin (the submit event and
// HTMLFormElement.prototype.submit).
// Part of the body of `install(win, parentPageURL)`, which hooks one realm: see core.js for how RequestHooksScript
// joins HooksRuntime/ into one closure. Not a script on its own; it uses from the shared scope:
//   `win`; from page.js orig, resolved, vouches; from upload.js serialize, upload.

// Native cannot read a form's body safely (see KEY_HEADER in core.js), so every POST form to this page's own origin
// on the custom scheme uploads its body first, serialised as the engine would for its enctype, and an empty
// carrier form sends the request tagged with the body's id. Whatever the hook switches say: without this the
// form would lose its body.
function submitHooked(form, submitter) {
  const method = (submitter && submitter.getAttribute('formmethod')) || form.method;
  if (String(method).toLowerCase() !== 'post') return false;
  const action = submitter && submitter.hasAttribute('formaction') ? submitter.formAction : form.action;
  if (!vouches(resolved(action))) return false;
  const data = submitter ? new win.FormData(form, submitter) : new win.FormData(form);
  const enctype = ((submitter && submitter.getAttribute('formenctype')) || form.enctype).toLowerCase();
  (async () => {
    const { blob, type } = await formBody(data, enctype);
    const id = await upload(blob, type, undefined, () => {}, () => {});
    const target = new URL(action, win.document.baseURI);
    target.searchParams.append('__hybrid_body', id);
    const carrier = win.document.createElement('form');
    carrier.method = 'post';
    carrier.action = target.href;
    carrier.target = (submitter && submitter.getAttribute('formtarget')) || form.target;
    carrier.style.display = 'none';
    win.document.body.appendChild(carrier);
    orig.submit.call(carrier);
  })().catch((error) => win.console.error('HybridKit: form submission failed: ' + (error && error.message || error)));
  return true;
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

win.addEventListener('submit', (event) => {
  if (event.defaultPrevented) return;
  if (submitHooked(event.target, event.submitter)) event.preventDefault();
});

win.HTMLFormElement.prototype.submit = function () {
  if (!submitHooked(this, null)) return orig.submit.apply(this, arguments);
  return undefined;
};
