import Foundation
import HybridCookies

extension PackageResources {
    /// A resource of HybridKit's own bundle (nil when the app shipped without it: see ``shippingAdvice``).
    static func url(forResource name: String, withExtension type: String, subdirectory: String) -> URL? {
        hybridKit?.url(forResource: name, withExtension: type, subdirectory: subdirectory)
    }

    private static let hybridKit = bundle(of: "HybridKit")
}
