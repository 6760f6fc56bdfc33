// HybridKit request hooks: navigator.sendBeacon.
// Part of the body of `install(win, parentPageURL)`, which hooks one realm: see core.js for how RequestHooksScript
// joins HooksRuntime/ into one closure. Not a script on its own; it uses from the shared scope:
//   `win`; from core.js P, kindOf, needsStore, engineSafe, bare; from page.js orig, planFor, resolved, vouches,
//   keyed, keyedFetch; from upload.js serialize; from fetch.js beaconFetch.

if (orig.beacon) {
  win.navigator.sendBeacon = function (url, data) {
    const plan = planFor(url, 'sendBeacon');
    const kind = kindOf(data);
    if (!plan || (plan.mode === 'store' && !needsStore(kind, data))) {
      const target = kind === 'none' ? null : resolved(url);
      if (!vouches(target)) return orig.beacon.apply(this, arguments);
      const safe = engineSafe(kind, data);
      if (safe === undefined) return orig.beacon.apply(this, arguments);
      const size = typeof safe === 'string' ? new win.TextEncoder().encode(safe).length
        : kind === 'buffer' || kind === 'view' ? P.arrayLength(safe) : 0;
      if (size > 65536) return false; // the beacon quota, as the engine applies it
      // An engine-safe beacon to this page's origin: the same request, as a keepalive fetch with the key.
      keyedFetch(target, bare({ method: 'POST', body: safe, keepalive: true, credentials: 'include',
        headers: keyed() })).catch(() => {});
      return true;
    }
    if (kind === 'blob' && data.size > 65536) return false; // the beacon quota, as the engine applies it
    (async () => {
      const { blob, type } = await serialize(data, kind);
      const init = bare({ method: 'POST', keepalive: true, credentials: 'include' });
      if (blob) {
        init.body = blob;
        if (type) init.headers = { 'Content-Type': type };
      }
      await beaconFetch.call(win, plan.url, init);
    })().catch((error) => win.console.error('HybridKit: beacon failed: ' + (error && error.message || error)));
    return true;
  };
}
