import Foundation

/// The content of `<store>/<id>/active.json`: which version serves, and the activation history used for
/// rollback and keep-N garbage collection. Replaced atomically (write, fsync, rename) on every change.
struct ActivePointer: Codable, Sendable, Equatable {
    var formatVersion: Int = 1
    /// The version that serves.
    var version: SemanticVersion
    /// Activated versions, most recent first; `history[0] == version`.
    var history: [SemanticVersion]
    var activatedAt: Date
    /// Versions left by `rollback`: garbage collection removes them even though they are newer than the active one.
    var rolledBack: [SemanticVersion]? = nil
    /// Versions activated on boot trial (`BootGuard`) that never confirmed. Kept in the pointer so that "active, on
    /// trial" is one atomic rename: no instant exists at which a new version serves and is not on trial.
    var unconfirmed: [SemanticVersion]? = nil

    func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        encoder.dateEncodingStrategy = .iso8601
        return try encoder.encode(self)
    }

    static func decode(_ data: Data) -> ActivePointer? {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        guard let pointer = try? decoder.decode(ActivePointer.self, from: data),
            pointer.formatVersion == 1
        else {
            return nil
        }
        return pointer
    }
}
