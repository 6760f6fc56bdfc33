// An app on WKWebView imports this module alone: the engine-free API comes with the adapter, and so does WebKit,
// whose `WKWebView` the adapter hands out typed (`WKEngineFactory.makeWKEngine().webView`). On Linux that is the
// stand-in the adapter is compiled and tested against.
@_exported import HybridKit
#if os(Linux)
@_exported import WebKitStandIn
#elseif canImport(WebKit)
@_exported import WebKit
#endif
