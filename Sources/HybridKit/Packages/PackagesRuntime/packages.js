// Boot confirmation for offline packages (`window.hybridPackages`, injected by BootSafety): a page of a newly
// activated package version calls `hybridPackages.ready()` once it has booted (rendered, fetched what it needs).
// Until then the version is on trial; a version whose page never confirms, whose web process dies or which
// renders blank is rolled back to the previous one.
'use strict';

(() => {
  if (window.hybridPackages) return;
  /** Resolves once native has recorded the boot; rejects with the bridge's error otherwise. */
  const ready = () => window.hybrid.call('packages', 'ready').then(() => undefined);
  Object.defineProperty(window, 'hybridPackages', {
    value: Object.freeze({ ready }),
    writable: false,
    configurable: false,
    enumerable: false,
  });
})();
