import Foundation

/// Gets the signed configuration's bytes from wherever the app publishes it.
public protocol ConfigFetching: Sendable {
    func fetch(_ url: URL) async throws(ConfigError) -> Data
}
