#if canImport(SwiftUI) && canImport(UIKit)
import SwiftUI
import UIKit
import WebKit
import HybridKitWK

/// The shop's page in SwiftUI. An app target shows it with
/// `@main struct ShopApp: App { var body: some Scene { WindowGroup { ShopView(container: …) } } }`.
public struct ShopView: UIViewRepresentable {
    let container: HybridContainer

    public init(container: HybridContainer) { self.container = container }

    public func makeUIView(context: Context) -> UIView {
        (container.engine as? WKEngine)?.webView ?? UIView()
    }

    public func updateUIView(_ view: UIView, context: Context) {}

    public static func dismantleUIView(_ view: UIView, coordinator: ()) {}
}
#endif
