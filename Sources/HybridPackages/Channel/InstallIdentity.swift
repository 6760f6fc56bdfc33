import Foundation

/// A random id for this install, created once and kept in the store root (`.install-id`): the stable input of
/// `RolloutBucket`. Random rather than derived from the device so it identifies nothing outside the app.
public enum InstallIdentity {
    static let fileName = ".install-id"

    /// Reads the id kept in `storeRoot`, creating it on first use.
    public static func load(storeRoot: URL) throws(PackageError) -> String {
        let url = storeRoot.appendingPathComponent(fileName)
        if let data = try? Data(contentsOf: url),
            let text = String(data: data, encoding: .utf8)?.trimmingCharacters(in: .whitespacesAndNewlines),
            UUID(uuidString: text) != nil
        {
            return text
        }
        // Missing or damaged: a new id moves this install to another bucket once, which is harmless.
        let id = UUID().uuidString
        do {
            try FileManager.default.createDirectory(at: storeRoot, withIntermediateDirectories: true)
        } catch {
            throw .wrapping(error, operation: "create the store at", path: storeRoot.path)
        }
        try DurableFiles.atomicWrite(Data(id.utf8), to: url)
        return id
    }
}
