// The page's Response for an answer native code made, not the engine: the request hooks' proxied answers (from the
// scheme's proxy path or the body channel's X-Hybrid-Head), and a network page's answer from a prefetch. The status,
// status text, headers and body as given; what a Response made by its constructor reads differently from a network
// answer is set as the network would have: `url` (the final URL), `redirected`, and `type` when given ('basic' for
// a same-origin answer; a constructed one reads 'default'). A null-body status, or a HEAD, gets no body.
// Shared, not copied: RequestHooksScript joins it into the hooks and FirstScreenPrefetch into the network-page
// prefetch runtime. It looks nothing up itself: the caller hands it the Response constructor and
// Object.defineProperty, taken when the caller chose to (the prefetch runtime: before any page script ran).
function nativeResponse(ResponseClass, define, body, head) {
  const status = head.status;
  const nullBody = status === 101 || status === 103 || status === 204 || status === 205 || status === 304 ||
    head.method === 'HEAD';
  const result = new ResponseClass(nullBody ? null : body, {
    status, statusText: head.statusText, headers: head.headers,
  });
  define(result, 'url', { value: head.url });
  define(result, 'redirected', { value: head.redirected });
  if (head.type) define(result, 'type', { value: head.type });
  return result;
}
