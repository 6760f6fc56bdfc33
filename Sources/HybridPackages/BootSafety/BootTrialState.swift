import Foundation

/// `<store>/<id>/trial.json`: the version on trial and its failed opens, written before each load so a crash of the
/// app during the open is found on the next start.
struct BootTrialState: Sendable, Codable, Equatable {
    var version: SemanticVersion
    var failures: [BootFailure]
    /// An open was started and has neither confirmed nor failed yet.
    var openInProgress: Bool
    /// When the current attempt's first open started: its deadline counts from here, across reloads, navigations
    /// and closed pages, and only a counted failure starts a fresh attempt.
    var openedAt: Date? = nil

    /// A fresh record for `version`, with no open yet.
    static func fresh(_ version: SemanticVersion) -> BootTrialState {
        BootTrialState(version: version, failures: [], openInProgress: false)
    }

    static func url(_ layout: StoreLayout, _ id: String) -> URL {
        layout.packageDirectory(id).appendingPathComponent("trial.json")
    }

    static func badURL(_ layout: StoreLayout, _ id: String) -> URL {
        layout.packageDirectory(id).appendingPathComponent("bad.json")
    }

    static func load(_ layout: StoreLayout, _ id: String) -> BootTrialState? {
        guard let data = try? Data(contentsOf: url(layout, id)) else { return nil }
        return try? JSONDecoder().decode(BootTrialState.self, from: data)
    }

    func save(_ layout: StoreLayout, _ id: String) throws(PackageError) {
        let data: Data
        do { data = try JSONEncoder().encode(self) } catch {
            throw .wrapping(error, operation: "encode", path: Self.url(layout, id).path)
        }
        try DurableFiles.atomicWrite(data, to: Self.url(layout, id))
    }

    static func clear(_ layout: StoreLayout, _ id: String) throws(PackageError) {
        let url = url(layout, id)
        guard FileManager.default.fileExists(atPath: url.path) else { return }
        do { try FileManager.default.removeItem(at: url) } catch {
            throw .wrapping(error, operation: "remove", path: url.path)
        }
        try DurableFiles.syncDirectory(url.deletingLastPathComponent())
    }

    static func badVersions(_ layout: StoreLayout, _ id: String) -> [BadVersion] {
        guard let data = try? Data(contentsOf: badURL(layout, id)) else { return [] }
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return (try? decoder.decode([BadVersion].self, from: data)) ?? []
    }

    static func saveBadVersions(_ list: [BadVersion], _ layout: StoreLayout, _ id: String) throws(PackageError) {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        let data: Data
        do { data = try encoder.encode(list) } catch {
            throw .wrapping(error, operation: "encode", path: badURL(layout, id).path)
        }
        try DurableFiles.atomicWrite(data, to: badURL(layout, id))
    }
}
