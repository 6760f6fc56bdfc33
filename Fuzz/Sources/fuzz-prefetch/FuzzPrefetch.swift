import Foundation
import FuzzSupport
@testable import HybridKit

/// Fuzzes prefetch declarations as a package or remote configuration ships them (`PrefetchDeclarations.decode`),
/// then the planner (`PrefetchPlanner.check` and `plan`) filling them for a page opened at a URL a link chose.
/// Another team's package, a compromised build, or a link writes these bytes. Fields: the
/// opened URL's path and query, one host value, then the declarations' JSON.
private let site = URL(string: "https://shop.example")
private let policies = [PrefetchPolicy(), PrefetchPolicy(allowsPrivateAddresses: true)]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzPrefetch(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    quietLogs()
    guard let site, let origin = WebOrigin(site) else { fail("the harness's site has no origin") }
    var input = FuzzInput(data, count)
    let policy = policies[Int(input.byte()) % policies.count]
    let opened = String(decoding: input.field(), as: UTF8.self)
    let value = String(decoding: input.field(), as: UTF8.self)
    let json = Data(input.rest())
    let declarations: PrefetchDeclarations
    do {
        declarations = try PrefetchDeclarations.decode(json, source: .package)
    } catch {
        return 0
    }
    let planner = PrefetchPlanner(site: origin, policy: policy)
    do {
        try planner.check(declarations)
    } catch {
        return 0
    }
    require(declarations.pages.count <= policy.maximumPages, "\(declarations.pages.count) pages accepted")
    guard let page = URL(string: "https://shop.example/" + opened) else { return 0 }
    for declared in declarations.pages {
        require(declared.requests.count <= policy.maximumRequestsPerPage, "\(declared.requests.count) requests")
        for request in declared.requests {
            guard let planned = try? planner.plan(request, page: page, values: ["user": value, "locale": value])
            else { continue }
            require(WebOrigin(planned.url) == origin, "\(request.url.debugDescription) reached \(planned.url)")
            require(planned.url.user == nil && planned.url.password == nil, "userinfo in \(planned.url)")
            require(planned.method == "GET" || planned.method == "HEAD", "method \(planned.method)")
            require(
                planned.headers.count <= PrefetchPolicy.maximumHeadersPerRequest, "\(planned.headers.count) headers")
            for (name, headerValue) in planned.headers {
                require(
                    !PrefetchPlanner.forbiddenHeaders.contains(name)
                        && !PrefetchPlanner.forbiddenHeaderPrefixes.contains(where: name.hasPrefix),
                    "forbidden header \(name)")
                require(
                    headerValue.unicodeScalars.allSatisfy {
                        $0 == " " || $0 == "\t" || (0x21...0x7E).contains($0.value)
                    },
                    "header \(name) carries \(headerValue.debugDescription)")
            }
            if !policy.allowsPrivateAddresses {
                require(!PrefetchPlanner.isPrivate(host: origin.host), "private host planned")
            }
        }
    }
    return 0
}
