#if os(Linux)
import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

// Value-like WebKit classes, declared as Apple's Swift interface shows them (@MainActor classes, not Sendable).

@MainActor public final class WKSecurityOrigin: NSObject {
    /// Empty for an opaque origin (sandboxed iframe, `data:` frame), as WebKit reports it.
    public let `protocol`: String
    public let host: String
    /// 0 for the protocol's default port.
    public let port: Int

    init(protocol: String, host: String, port: Int) {
        self.protocol = `protocol`
        self.host = host
        self.port = port
    }

    /// From the port's serialization (`scheme://host[:port]`, or `null` for an opaque origin).
    convenience init(serialized: String) {
        guard serialized != "null", let components = URLComponents(string: serialized),
            let scheme = components.scheme
        else {
            self.init(protocol: "", host: "", port: 0)
            return
        }
        self.init(protocol: scheme, host: components.host ?? "", port: components.port ?? 0)
    }
}

@MainActor public final class WKFrameInfo: NSObject {
    public let isMainFrame: Bool
    public let request: URLRequest
    public let securityOrigin: WKSecurityOrigin
    public private(set) weak var webView: WKWebView?

    init(isMainFrame: Bool, request: URLRequest, securityOrigin: WKSecurityOrigin, webView: WKWebView?) {
        self.isMainFrame = isMainFrame
        self.request = request
        self.securityOrigin = securityOrigin
        self.webView = webView
    }
}

@available(iOS 14.0, macOS 11.0, *)
@MainActor public final class WKContentWorld: NSObject {
    public let name: String?
    private init(name: String?) { self.name = name }
    public static let page = WKContentWorld(name: nil)
    public static let defaultClient = WKContentWorld(name: "defaultClient")
}

@MainActor public final class WKScriptMessage: NSObject {
    public let body: Any
    public private(set) weak var webView: WKWebView?
    public let frameInfo: WKFrameInfo
    public let name: String
    @available(iOS 14.0, macOS 11.0, *)
    public var world: WKContentWorld { .page }

    init(body: Any, webView: WKWebView?, frameInfo: WKFrameInfo, name: String) {
        self.body = body
        self.webView = webView
        self.frameInfo = frameInfo
        self.name = name
    }
}

public enum WKUserScriptInjectionTime: Int, Sendable {
    case atDocumentStart = 0
    case atDocumentEnd = 1
}

@MainActor public final class WKUserScript: NSObject {
    public let source: String
    public let injectionTime: WKUserScriptInjectionTime
    public let isForMainFrameOnly: Bool

    public init(source: String, injectionTime: WKUserScriptInjectionTime, forMainFrameOnly: Bool) {
        self.source = source
        self.injectionTime = injectionTime
        self.isForMainFrameOnly = forMainFrameOnly
    }
}

public enum WKNavigationType: Int, Sendable {
    case linkActivated = 0
    case formSubmitted = 1
    case backForward = 2
    case reload = 3
    case formResubmitted = 4
    case other = -1
}

public enum WKNavigationActionPolicy: Int, Sendable {
    case cancel = 0
    case allow = 1
    @available(iOS 14.5, macOS 11.3, *) case download = 2
}

public enum WKNavigationResponsePolicy: Int, Sendable {
    case cancel = 0
    case allow = 1
    @available(iOS 14.5, macOS 11.3, *) case download = 2
}

@MainActor public final class WKNavigation: NSObject {}

@MainActor public final class WKNavigationAction: NSObject {
    public let request: URLRequest
    public let navigationType: WKNavigationType
    public let sourceFrame: WKFrameInfo
    public let targetFrame: WKFrameInfo?
    @available(iOS 14.5, macOS 11.3, *)
    public let shouldPerformDownload: Bool

    init(
        request: URLRequest, navigationType: WKNavigationType, sourceFrame: WKFrameInfo, targetFrame: WKFrameInfo?,
        shouldPerformDownload: Bool
    ) {
        self.request = request
        self.navigationType = navigationType
        self.sourceFrame = sourceFrame
        self.targetFrame = targetFrame
        self.shouldPerformDownload = shouldPerformDownload
    }
}

@MainActor public final class WKNavigationResponse: NSObject {
    public let isForMainFrame: Bool
    public let response: URLResponse
    public let canShowMIMEType: Bool

    init(isForMainFrame: Bool, response: URLResponse, canShowMIMEType: Bool) {
        self.isForMainFrame = isForMainFrame
        self.response = response
        self.canShowMIMEType = canShowMIMEType
    }
}

@MainActor public final class WKWindowFeatures: NSObject {}

@available(iOS 14.5, macOS 11.3, *)
@MainActor public final class WKDownload: NSObject {
    public let originalRequest: URLRequest?
    public weak var delegate: (any WKDownloadDelegate)?
    init(originalRequest: URLRequest?) { self.originalRequest = originalRequest }
}

@MainActor public final class WKSnapshotConfiguration: NSObject {
    public override init() {}
}

@MainActor public final class WKPreferences: NSObject {
    public var javaScriptCanOpenWindowsAutomatically = false
    public override init() {}
}

public struct WKAudiovisualMediaTypes: OptionSet, Sendable {
    public let rawValue: UInt
    public init(rawValue: UInt) { self.rawValue = rawValue }
    public static let audio = WKAudiovisualMediaTypes(rawValue: 1 << 0)
    public static let video = WKAudiovisualMediaTypes(rawValue: 1 << 1)
    public static let all: WKAudiovisualMediaTypes = [.audio, .video]
}

@MainActor public final class WKBackForwardListItem: NSObject {
    public let url: URL
    public let initialURL: URL
    public let title: String?
    init(url: URL, title: String?) {
        self.url = url
        self.initialURL = url
        self.title = title
    }
}

@MainActor public final class WKBackForwardList: NSObject {
    public internal(set) var currentItem: WKBackForwardListItem?
    public internal(set) var backList: [WKBackForwardListItem] = []
    public internal(set) var forwardList: [WKBackForwardListItem] = []
}

/// Stands in for UIKit's image on Linux: only what a snapshot needs.
public final class UIImage: @unchecked Sendable {
    private let png: Data
    init(png: Data) { self.png = png }
    public func pngData() -> Data? { png }
}

public let WKErrorDomain = "WKErrorDomain"
public let WKJavaScriptExceptionMessageKey = "WKJavaScriptExceptionMessage"
#endif
