import Foundation
import FuzzSupport
@testable import HybridPackages

/// Fuzzes the documents a package update reads before (and right after) checking a signature: the signed release
/// index envelope and the index inside it, the manifest and its signature file, the update server's release
/// document and SemVer strings. The first byte picks the parser; the rest is the document.
///
/// Signed content cannot be reached by forging a signature, so one mode signs the fuzzed bytes with the harness's
/// own key: that is what a compromised or buggy publisher could serve, and the client must still refuse or accept
/// it without trapping.
private let keyPair: PackageKeyPair = {
    do { return try PackageKeyPair(privateKeyRawRepresentation: Data(repeating: 7, count: 32)) } catch {
        fatalError("the fuzz key is a valid Ed25519 seed: \(error)")
    }
}()

private let reader: ReleaseChannelReader = {
    let root = FileManager.default.temporaryDirectory.appendingPathComponent("hybridkit-fuzz-index-\(getpid())")
    do {
        return try ReleaseChannelReader(
            storeRoot: root,
            configuration: ReleaseChannelConfiguration(
                channel: "production", releaseKey: keyPair.verificationKey,
                hostVersion: SemanticVersion(major: 1, minor: 2, patch: 3)),
            installID: "fuzz-install")
    } catch {
        fatalError("the fuzz channel configuration is valid: \(error)")
    }
}()

// swift-format-ignore: NeverForceUnwrap
// A literal that always parses.
private let base = URL(string: "https://updates.example.com/channels/production/shop.json")!

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSignedDocuments(_ data: UnsafePointer<UInt8>, _ count: Int) -> CInt {
    quietLogs()
    var input = FuzzInput(data, count)
    let mode = input.byte() % 6
    let document = Data(input.rest())
    switch mode {
    case 0:
        // An envelope as served: nobody can sign it, so it must be refused.
        if let index = try? SignedReleaseIndex.open(document, trustedKey: keyPair.verificationKey, source: "fuzz") {
            // Only possible if the fuzzer found bytes our key signed: the seed corpus has some; they must be real.
            checkIndex(index)
        }
    case 1:
        // The index bytes, signed by the publisher's key: everything after the signature check.
        guard let signature = try? keyPair.sign(manifestBytes: SignedReleaseIndex.signingContext + document),
            let envelope = try? SignedReleaseIndex(
                algorithm: "ed25519", index: document, keyID: keyPair.verificationKey.keyID,
                signature: signature.signature
            ).encoded()
        else { return 0 }
        guard let index = try? SignedReleaseIndex.open(envelope, trustedKey: keyPair.verificationKey, source: "fuzz")
        else { return 0 }
        require(index.formatVersion == ReleaseIndex.currentFormatVersion, "opened format \(index.formatVersion)")
        checkIndex(index)
    case 2:
        guard let manifest = try? PackageManifest.decode(document) else { return 0 }
        // Decoding validates: every path is safe, and the canonical form decodes to the same manifest.
        for file in manifest.files {
            require(
                (try? PackagePath(validating: file.path)) != nil, "accepted unsafe path \(file.path.debugDescription)")
            require(PackageManifest.isLowercaseHexSHA256(file.sha256), "accepted hash \(file.sha256.debugDescription)")
        }
        guard let canonical = try? manifest.canonicalData() else {
            require(false, "a decoded manifest does not encode")
            return 0
        }
        let again = try? PackageManifest.decode(canonical)
        require(again == manifest, "the canonical manifest does not decode to itself")
    case 3:
        // A manifest.sig: whatever it holds, it is not a valid signature of this manifest by our key.
        guard let signature = try? ManifestSignature.decode(document) else { return 0 }
        let verified = (try? signature.verify(manifestBytes: Data("{}".utf8), with: keyPair.verificationKey)) != nil
        require(!verified, "a fuzzed signature verified")
    case 4:
        // The update server's release document (HTTPUpdateClient), resolved against the URL it came from.
        guard let release = try? JSONDecoder().decode(ReleaseDocument.self, from: document) else { return 0 }
        guard let resolved = try? release.release(relativeTo: base) else { return 0 }
        require(resolved.version.description == SemanticVersion(release.version)?.description, "version changed")
        require(resolved.diffs.count <= release.diffs.count, "more diffs than offered")
    default:
        let text = String(decoding: document, as: UTF8.self)
        guard let version = SemanticVersion(text) else { return 0 }
        // What a version prints parses back to an equal version (versions key diffs and exclusions).
        require(SemanticVersion(version.description) == version, "\(text.debugDescription) does not round-trip")
    }
    return 0
}

private func checkIndex(_ index: ReleaseIndex) {
    // The canonical bytes that would be signed decode to the same index.
    if let bytes = try? index.canonicalBytes() {
        require((try? ReleaseIndex.decode(bytes)) == index, "the canonical index does not decode to itself")
    }
    guard let chosen = try? reader.eligibleRelease(in: index, relativeTo: base) else { return }
    require(
        index.releases.contains { SemanticVersion($0.version) == chosen.version },
        "chose \(chosen.version), which the index does not list")
    require(index.id == chosen.id, "chose a release of \(chosen.id) from the index of \(index.id)")
}
