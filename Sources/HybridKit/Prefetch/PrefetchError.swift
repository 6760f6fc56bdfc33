import Foundation

/// Why a prefetch declaration, or one of its requests once filled in, was refused. Declarations from a package or
/// remote configuration are untrusted input (see <doc:FirstScreenPrefetching>): each refusal names what to change.
public enum PrefetchError: Error, Equatable, CustomStringConvertible {
    /// The URL template could reach another origin than the site's.
    case otherOrigin(template: String, site: String)
    /// More requests (for one page) or pages than ``PrefetchPolicy`` allows.
    case tooMany(what: String, count: Int, limit: Int)
    /// The URL names a loopback, private or link-local address, which the policy does not allow.
    case privateAddress(host: String)
    /// A header value (once filled in) holds a line break or another control character.
    case headerInjection(name: String)
    /// A header the page cannot set itself, or that native code sets (`Cookie`, `Host`, `Origin`…).
    case forbiddenHeader(name: String)
    /// A method other than GET or HEAD.
    case methodNotAllowed(String)
    /// A template names a value native code does not supply, or is malformed.
    case invalidTemplate(template: String, reason: String)
    /// Declarations, a template or a filled-in value over the policy's size limit.
    case tooLarge(what: String, bytes: Int, limit: Int)
    /// The declarations are not the expected JSON.
    case unreadable(source: String, reason: String)

    public var description: String {
        switch self {
        case .otherOrigin(let template, let site):
            "prefetch URL '\(template)' could reach another origin than \(site): write a path ('/api/x') or a URL "
                + "starting with the site's origin and a '/', with values only after it"
        case .tooMany(let what, let count, let limit):
            "\(count) \(what) declared for prefetch, more than the \(limit) PrefetchPolicy allows: declare only what "
                + "the first screen needs, or raise the limit in code"
        case .privateAddress(let host):
            "prefetch to \(host), a loopback or private address, is not allowed: set "
                + "PrefetchPolicy.allowsPrivateAddresses in development only"
        case .headerInjection(let name):
            "prefetch header '\(name)' would hold a line break or control character: values must be plain text"
        case .forbiddenHeader(let name):
            "prefetch header '\(name)' is not one a declaration may set (cookies come from the jar; Host, Origin, "
                + "Referer and connection headers are the network's): remove it"
        case .methodNotAllowed(let method):
            "prefetch method \(method) is not allowed: only GET and HEAD, which are safe to make and throw away"
        case .invalidTemplate(let template, let reason):
            "prefetch template '\(template)': \(reason)"
        case .tooLarge(let what, let bytes, let limit):
            "\(what) is \(bytes) bytes, over the \(limit) PrefetchPolicy allows"
        case .unreadable(let source, let reason):
            "prefetch declarations from \(source) are not readable JSON ({\"pages\": [...]}): \(reason)"
        }
    }
}
