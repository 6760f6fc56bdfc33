#if canImport(SwiftUI) && canImport(UIKit)
import SwiftUI
import UIKit
import WebKit
import HybridKitWK

/// The shop's page in SwiftUI. An app target shows it with
/// `@main struct ShopApp: App { var body: some Scene { WindowGroup { ShopView(try ShopHost.open(site)) } } }`.
public struct ShopView: UIViewRepresentable {
    /// Kept alive as long as the view: closing it detaches the page.
    let container: HybridContainer
    let webView: WKWebView

    public init(_ opened: (container: HybridContainer, webView: WKWebView)) {
        container = opened.container
        webView = opened.webView
    }

    public func makeUIView(context: Context) -> WKWebView { webView }

    public func updateUIView(_ view: WKWebView, context: Context) {}
}
#endif
