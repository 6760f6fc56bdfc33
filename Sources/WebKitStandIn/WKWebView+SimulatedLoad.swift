#if os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import HybridKit

extension WKWebView {
    /// WebKit shows `data` as the answer `response` gave to `request`, sending nothing, and applies the response's
    /// headers as a network response's (it raises only on a suspended view, which the stand-in has no notion of).
    /// The stand-in hands it to its engine's simulated load; an engine that cannot carry the response's headers
    /// (WebKitGTK cannot carry any WebKit applies) makes the stand-in load `request` from the network instead, the
    /// same document by another road, and say so on standard error: a Linux-only difference, never in an app.
    @discardableResult
    public func loadSimulatedRequest(_ request: URLRequest, response: URLResponse, responseData data: Data)
        -> WKNavigation
    {
        requireMainThread("-[WKWebView loadSimulatedRequest:response:responseData:]")
        let navigation = WKNavigation()
        guard let engineRequest = Self.engineRequest(request, withBody: false) else { return navigation }
        var headers: [String: String] = [:]
        var status = 200
        if let http = response as? HTTPURLResponse {
            status = http.statusCode
            for (key, value) in http.allHeaderFields {
                if let name = key as? String, let value = value as? String { headers[name] = value }
            }
        } else if let type = response.mimeType {
            headers["Content-Type"] = type + (response.textEncodingName.map { "; charset=\($0)" } ?? "")
        }
        let simulated = SchemeResponse(statusCode: status, headers: headers, expectedLength: data.count)
        backing?.perform { [backing] engine in
            do throws(EngineError) {
                try engine.loadSimulatedRequest(engineRequest, response: simulated, responseData: data)
            } catch .unsupported(let why) {
                FileHandle.standardError.write(
                    Data("WebKitStandIn: simulated load carried by the network instead (\(why))\n".utf8))
                do throws(EngineError) { try engine.load(engineRequest) } catch {
                    let message = error.description
                    backing?.toView { view in view.reportLoadFailure(message) }
                }
            } catch {
                let message = error.description
                backing?.toView { view in view.reportLoadFailure(message) }
            }
        }
        return navigation
    }
}
#endif
