// An app on WKWebView imports this module alone: the engine-free API comes with the adapter.
@_exported import HybridKit
