// HybridKit request hooks: realms made by this page (same-origin iframes, about:blank included, and windows it
// opens) are hooked as this page when the page first reaches them. Last in `install`: it patches the frame
// elements' getters and window.open once everything else is in place.
// Part of the body of `install(win, parentPageURL)`, which hooks one realm: see core.js for how RequestHooksScript
// joins HooksRuntime/ into one closure. Not a script on its own; it uses from the shared scope:
//   `win`, `install` itself (RequestHooksScript declares it around these files); from page.js pageURL.

for (const Element of [win.HTMLIFrameElement, win.HTMLFrameElement, win.HTMLObjectElement]) {
  if (!Element) continue;
  for (const name of ['contentWindow', 'contentDocument']) {
    const descriptor = Object.getOwnPropertyDescriptor(Element.prototype, name);
    if (!descriptor || !descriptor.get) continue;
    Object.defineProperty(Element.prototype, name, {
      configurable: true,
      enumerable: descriptor.enumerable,
      get() {
        const value = descriptor.get.call(this);
        const child = name === 'contentWindow' ? value : value && value.defaultView;
        if (child) install(child, pageURL);
        return value;
      },
    });
  }
}
const openWindow = win.open;
win.open = function () {
  const child = openWindow.apply(this, arguments);
  if (child) install(child, pageURL);
  return child;
};
