import Foundation
import FuzzSupport
@testable import HybridKit

/// Fuzzes what the HTTP cache reads from a server's response before it stores or reuses it: `Cache-Control`
/// (`CacheControl`), delta-seconds, HTTP dates (`HTTPDate`), and the freshness, age and may-store rules
/// (`CacheRules`) over them. Any server a package page or the native proxy reaches writes these headers. The
/// first byte picks the status; the rest is `Cache-Control`, `Age`, `Date`, `Expires`, `Last-Modified` and `Vary`
/// as fields.
private let statuses = [200, 203, 204, 206, 301, 302, 304, 404, 500]

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzHTTPCache(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    quietLogs()
    var input = FuzzInput(data, count)
    let status = statuses[Int(input.byte()) % statuses.count]
    func text(_ bytes: [UInt8]) -> String { String(decoding: bytes, as: UTF8.self) }
    let control = text(input.field())
    let age = text(input.field())
    let date = text(input.field())
    let expires = text(input.field())
    let modified = text(input.field())
    let vary = text(input.rest())
    var headers = ["Cache-Control": control, "Vary": vary]
    for (name, value) in [("Age", age), ("Date", date), ("Expires", expires), ("Last-Modified", modified)]
    where !value.isEmpty {
        headers[name] = value
    }

    let parsed = CacheControl(control)
    for value in [parsed.maxAge, parsed.minFresh].compactMap({ $0 }) {
        require(
            (0...CacheControl.deltaSecondsCeiling).contains(value),
            "delta-seconds \(value) from \(control.debugDescription)")
    }
    let lowered = control.lowercased()
    if parsed.noStore { require(lowered.contains("no-store"), "no-store read from \(control.debugDescription)") }
    if let seconds = CacheControl.deltaSeconds(age) {
        require(
            age.utf8.allSatisfy { (0x30...0x39).contains($0) }, "delta-seconds \(seconds) from \(age.debugDescription)")
    }

    let lifetime = CacheRules.freshnessLifetime(headers, status: status)
    require(lifetime.isFinite && lifetime >= 0, "lifetime \(lifetime) for \(headers)")
    let now = Date(timeIntervalSince1970: 1_800_000_000)
    let current = CacheRules.currentAge(
        headers, requestTime: now, responseTime: now.addingTimeInterval(1), now: now + 2)
    require(current.isFinite && current >= 0, "age \(current) for \(headers)")
    // The header the cache writes when it replays: `String(Int(age))` must not trap for an age it finds fresh.
    if current < lifetime { _ = String(Int(current)) }

    var request = EngineRequest(url: URL(string: "https://shop.example/a") ?? URL(fileURLWithPath: "/"))
    request.headers = [("Cache-Control", age)]
    if CacheRules.mayStore(status: status, response: headers, request: request) {
        require(CacheRules.storable.contains(status), "stored a \(status)")
        require(!parsed.noStore && !CacheControl(age).noStore, "stored despite no-store: \(headers)")
        let names = CacheRules.varyNames(headers)
        require(!names.contains("*") && !names.contains("cookie"), "stored with Vary: \(vary.debugDescription)")
    }

    // Dates the cache writes read back as the same second.
    if let parsedDate = HTTPDate.parse(date), abs(parsedDate.timeIntervalSince1970) < 1e11 {
        let second = parsedDate.timeIntervalSince1970.rounded(.down)
        let again = HTTPDate.parse(HTTPDate.format(Date(timeIntervalSince1970: second)))
        require(again?.timeIntervalSince1970 == second, "\(date.debugDescription) did not round-trip")
    }
    return 0
}
