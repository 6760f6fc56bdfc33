/// A scheme task that says what its request wants done with a redirect (Fetch's `redirect` option), for wrappers
/// that know it (the request hooks pass the page's choice). Tasks that do not conform follow redirects.
///
/// ``PackageSchemeHandler`` honours it for requests it sends to the network: `manual` hands the 3xx to the task as
/// it came, `error` fails the task, neither sends the request on to the redirect's target.
public protocol RedirectModeCarrying {
    var redirectMode: ProxiedRequest.RedirectMode { get }
}
