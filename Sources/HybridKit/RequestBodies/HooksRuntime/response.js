// The page's Response for an answer native code made, not the engine: the request hooks' proxied answers (from the
// scheme's proxy path or the body channel's X-Hybrid-Head), and a network page's answer from a prefetch. The status,
// status text, headers and body as given; what a Response made by its constructor reads differently from a network
// answer is set as the network would have: `url` (the final URL), `redirected`, and `type` when given ('basic' for
// a same-origin answer; a constructed one reads 'default'). A null-body status, or a HEAD, gets no body.
// Shared, not copied: RequestHooksScript joins it into the hooks and FirstScreenPrefetch into the network-page
// prefetch runtime. It looks nothing up itself: the caller hands it the Response constructor and
// Object.defineProperty, taken when the caller chose to (the prefetch runtime: before any page script ran), and
// optionally Response.prototype.clone as a function of the response (else read from ResponseClass when cloning).
// `clone()` gives a Response that reads the same `url`, `redirected` and `type` (a plain clone would read a
// constructed one's).
function nativeResponse(ResponseClass, define, body, head, cloneOf) {
  const status = head.status;
  const nullBody = status === 101 || status === 103 || status === 204 || status === 205 || status === 304 ||
    head.method === 'HEAD';
  const result = new ResponseClass(nullBody ? null : body, {
    status, statusText: head.statusText, headers: head.headers,
  });
  const copy = cloneOf || ((response) => ResponseClass.prototype.clone.call(response));
  const dress = (response) => {
    define(response, 'url', { value: head.url });
    define(response, 'redirected', { value: head.redirected });
    if (head.type) define(response, 'type', { value: head.type });
    define(response, 'clone', { value: function clone() { return dress(copy(response)); } });
    return response;
  };
  return dress(result);
}
