import Foundation

/// Brings the store back to a consistent state when it opens (after a crash, a full disk, or tampering).
///
/// The install protocol guarantees that only three kinds of debris can exist: staging directories (an
/// interrupted install or delete), a `active.json.tmp` (an interrupted pointer write) and, if the disk itself
/// lost data, damaged version directories. All three are handled here.
struct StoreRepairer {
    let layout: StoreLayout
    let inspector: InstalledVersionInspector

    struct Opened {
        var report = StoreRepairReport()
        var active: [String: InstalledPackage] = [:]
        var pointers: [String: ActivePointer] = [:]
    }

    func openAndRepair() throws(PackageError) -> Opened {
        let fileManager = FileManager.default
        do { try fileManager.createDirectory(at: layout.root, withIntermediateDirectories: true) } catch {
            throw .wrapping(error, operation: "create the store at", path: layout.root.path)
        }
        var opened = Opened()
        let names = (try? fileManager.contentsOfDirectory(atPath: layout.root.path)) ?? []
        for id in names.sorted() where PackageIdentifier.isValid(id) {
            repairPackage(id, into: &opened)
        }
        return opened
    }

    private func repairPackage(_ id: String, into opened: inout Opened) {
        let fileManager = FileManager.default
        for leftover in (try? fileManager.contentsOfDirectory(atPath: layout.stagingDirectory(id).path))
            ?? []
        {
            try? fileManager.removeItem(at: layout.stagingDirectory(id).appendingPathComponent(leftover))
            opened.report.removedStagingDirectories.append("\(id)/\(leftover)")
        }
        let pointerURL = layout.pointerURL(id)
        try? fileManager.removeItem(at: pointerURL.appendingPathExtension("tmp"))

        var intact: [SemanticVersion: PackageManifest] = [:]
        let versionNames =
            (try? fileManager.contentsOfDirectory(atPath: layout.versionsDirectory(id).path)) ?? []
        for name in versionNames {
            let directory = layout.versionsDirectory(id).appendingPathComponent(name, isDirectory: true)
            if let version = SemanticVersion(name), version.description == name,
                let manifest = inspector.intactManifest(at: directory, id: id, version: version)
            {
                intact[version] = manifest
            } else {
                try? fileManager.removeItem(at: directory)
                opened.report.discardedVersions.append("\(id)/\(name)")
            }
        }

        let pointerExists = fileManager.fileExists(atPath: pointerURL.path)
        let stored = (try? Data(contentsOf: pointerURL)).flatMap(ActivePointer.decode)
        var pointer = stored
        if var candidate = pointer {
            candidate.history = candidate.history.filter { intact[$0] != nil }
            if let first = candidate.history.first {
                candidate.version = first
                pointer = candidate
            } else {
                pointer = nil
            }
        } else if pointerExists, let newest = intact.keys.max() {
            // The pointer is unreadable: serve the newest intact version rather than nothing.
            pointer = ActivePointer(version: newest, history: [newest], activatedAt: Date())
        }

        guard let pointer, let manifest = intact[pointer.version] else {
            if pointerExists {
                try? fileManager.removeItem(at: pointerURL)
                opened.report.discardedPackages.append(id)
            }
            return
        }
        if pointer != stored {
            if let bytes = try? pointer.encoded(),
                (try? DurableFiles.atomicWrite(bytes, to: pointerURL)) != nil
            {
                opened.report.repairedPointers.append(id)
            }
        }
        opened.pointers[id] = pointer
        opened.active[id] = InstalledPackage(
            manifest: manifest, directory: layout.versionDirectory(id, pointer.version))
    }
}
