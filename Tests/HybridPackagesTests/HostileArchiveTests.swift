import Foundation
import HybridPackages
import HybridTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Hostile zips built from a real signed package: every header field of the local headers, the central directory,
/// the end record, the ZIP64 end record and locator and the ZIP64 extra fields rewritten to absurd values, plus the
/// cases outside testing found (a spinning stored entry, an unlisted encrypted entry, corrupt deflate data,
/// truncation). Each is read by `package-install-child read` in its own process under a CPU and memory limit, so a
/// trap or a hang in the zip reader is reported as a failure naming the case instead of ending the test run.
@Suite(.serialized) struct HostileArchiveTests {
    /// A signed 2.0.0 package, its parts, and a store template serving 1.0.0.
    final class Corpus: @unchecked Sendable {
        let fixture: Fixture
        let image: ZipImage
        let publicKey: URL
        let templateStore: URL

        init() throws {
            fixture = try Fixture()
            var files = Fixture.files(version: "2.0.0")
            // Compressible, and larger than everything after it in the zip: the spinning-entry case needs that.
            files["zz-big.js"] = String(repeating: "// 2.0.0 filler line\n", count: 10_000)
            let good = try fixture.pack("2.0.0", files: files)
            image = try ZipImage(parsing: [UInt8](try Data(contentsOf: good)))
            publicKey = fixture.url("key.pub")
            try fixture.keyPair.verificationKey.save(to: publicKey)
            let store = try fixture.openStore()
            try fixture.installer(store).install(packageAt: try fixture.pack("1.0.0"))
            templateStore = fixture.storeRoot
        }

        func write(_ name: String, _ bytes: [UInt8]) throws -> URL {
            let url = fixture.url("cases/\(name.replacingOccurrences(of: "/", with: "_")).zip")
            try FileManager.default.createDirectory(
                at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
            try Data(bytes).write(to: url)
            return url
        }

        /// A private copy of the store serving 1.0.0, for a child to install into.
        func storeCopy(_ name: String) throws -> URL {
            let copy = fixture.url("stores/\(name)")
            try FileManager.default.createDirectory(
                at: copy.deletingLastPathComponent(), withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: templateStore, to: copy)
            return copy
        }

        var lastIndex: Int { image.entries.count - 1 }

        func index(of path: String) throws -> Int {
            try #require(image.entries.firstIndex { $0.path == path })
        }
    }

    // MARK: - Running a case in a child process

    struct Outcome: CustomStringConvertible {
        /// "ok <version>" or "refused <case> <description>", by operation (VERIFY, INSPECT, INSTALL).
        var results: [String: String] = [:]
        /// Why the child did not finish: a signal, a time-out, a non-zero exit. Nil when it printed DONE.
        var abnormal: String?

        func refusal(_ operation: String) -> String? {
            guard let line = results[operation], line.hasPrefix("refused ") else { return nil }
            return String(line.dropFirst("refused ".count))
        }

        func accepted(_ operation: String) -> Bool { results[operation]?.hasPrefix("ok ") == true }

        var description: String {
            (abnormal.map { ["ABNORMAL: \($0)"] } ?? []).joined() + " "
                + results.sorted { $0.key < $1.key }.map { "\($0.key) \($0.value)" }.joined(separator: " | ")
        }
    }

    /// Runs the child off Swift's cooperative thread pool: it blocks for as long as the child runs, and tests
    /// that block the pool's few threads starve every other test of the process.
    static func runChild(package: URL, publicKey: URL, store: URL? = nil, wallSeconds: Int = 60) async throws
        -> Outcome
    {
        try await offThePool {
            try runChildBlocking(package: package, publicKey: publicKey, store: store, wallSeconds: wallSeconds)
        }
    }

    static func runChildBlocking(package: URL, publicKey: URL, store: URL? = nil, wallSeconds: Int = 60) throws
        -> Outcome
    {
        guard let binary = builtExecutable(named: "package-install-child") else {
            throw CrashSafetyTests.CrashTestError.childNotBuilt
        }
        var environment = ProcessInfo.processInfo.environment
        environment["HYBRID_CHILD_MAX_MEMORY_MB"] = "2048"
        environment["HYBRID_CHILD_MAX_CPU_SECONDS"] = "10"
        let child = try ChildProcess.run(
            binary, arguments: ["read", package.path, publicKey.path] + (store.map { [$0.path] } ?? []),
            environment: environment, limit: .seconds(wallSeconds))
        var outcome = Outcome()
        if child.timedOut { outcome.abnormal = "still running after \(wallSeconds) s (hang), killed" }
        let text = String(decoding: child.standardOutput, as: UTF8.self)
        var done = false
        for line in text.split(separator: "\n") {
            if line == "DONE" { done = true }
            let parts = line.split(separator: " ", maxSplits: 1)
            if parts.count == 2, ["VERIFY", "INSPECT", "INSTALL"].contains(String(parts[0])) {
                outcome.results[String(parts[0])] = String(parts[1])
            }
        }
        if outcome.abnormal == nil {
            if let signal = child.signal {
                // RLIMIT_CPU sends SIGXCPU at the soft limit and SIGKILL at the hard one.
                let cpuLimit = [SIGXCPU, SIGKILL].contains(signal)
                let name = cpuLimit ? " (CPU limit reached: a hang)" : ""
                outcome.abnormal = "killed by signal \(signal)\(name)"
            } else if child.exitStatus != 0 || !done {
                outcome.abnormal = "exited with status \(child.exitStatus ?? -1) without finishing"
            }
        }
        return outcome
    }

    // MARK: - Expectations

    enum Expectation {
        /// Every operation must refuse it (with a typed error that is not a file-system error).
        case refused
        /// Refused by the structural pre-flight check (`archiveMalformed`), before any zip reader saw it.
        case malformed
        /// Either refused as above or accepted: the field is one no reader needs (a time stamp, an attribute).
        case eitherOutcome
    }

    struct Case {
        var name: String
        var bytes: [UInt8]
        var expectation: Expectation
    }

    /// Problems with one case's outcome, empty when it is acceptable.
    static func problems(_ outcome: Outcome, _ expectation: Expectation, operations: [String]) -> [String] {
        var problems: [String] = []
        if let abnormal = outcome.abnormal { problems.append(abnormal) }
        for operation in operations {
            guard let line = outcome.results[operation] else {
                if outcome.abnormal == nil { problems.append("\(operation) printed nothing") }
                continue
            }
            if let refusal = outcome.refusal(operation), refusal.hasPrefix("fileSystem") {
                problems.append("\(operation) blamed the file system for the archive: \(refusal)")
            }
            switch expectation {
            case .refused where !line.hasPrefix("refused "):
                problems.append("\(operation) accepted it: \(line)")
            case .malformed where !line.hasPrefix("refused archiveMalformed"):
                problems.append("\(operation) did not refuse it as archiveMalformed: \(line)")
            default: break
            }
            if line.hasPrefix("ok "), line != "ok 2.0.0" {
                problems.append("\(operation) read a wrong version: \(line)")
            }
        }
        return problems
    }

    /// Runs every case (two at a time: there are two cores) and records one issue per case that went wrong.
    static func check(_ cases: [Case], corpus: Corpus, sourceLocation: SourceLocation = #_sourceLocation) async throws {
        final class Results: @unchecked Sendable {
            let lock = NSLock()
            var failures: [(String, String)] = []
            var errors: [String] = []
            var outcomes: [String] = []
        }
        let results = Results()
        let urls = try cases.map { try corpus.write($0.name, $0.bytes) }
        let publicKey = corpus.publicKey
        try await offThePool {
            DispatchQueue.concurrentPerform(iterations: cases.count) { index in
                do {
                    let outcome = try runChildBlocking(package: urls[index], publicKey: publicKey)
                    let found = problems(outcome, cases[index].expectation, operations: ["VERIFY", "INSPECT"])
                    let verify = outcome.abnormal ?? outcome.results["VERIFY"].map { String($0.prefix(60)) } ?? "-"
                    results.lock.withLock { results.outcomes.append("\(cases[index].name)\t\(verify)") }
                    if !found.isEmpty {
                        results.lock.withLock {
                            results.failures.append(
                                (cases[index].name, found.joined(separator: "; ") + " — \(outcome)"))
                        }
                    }
                } catch {
                    results.lock.withLock { results.errors.append("\(cases[index].name): \(error)") }
                }
            }
        }
        // HYBRID_HOSTILE_REPORT=<file> appends each case's verify outcome there, to review what refused what.
        if let report = ProcessInfo.processInfo.environment["HYBRID_HOSTILE_REPORT"] {
            let lines = results.outcomes.sorted().joined(separator: "\n") + "\n"
            if let handle = FileHandle(forWritingAtPath: report) {
                handle.seekToEndOfFile()
                handle.write(Data(lines.utf8))
                try? handle.close()
            } else {
                try? Data(lines.utf8).write(to: URL(fileURLWithPath: report))
            }
        }
        for error in results.errors { Issue.record("could not run: \(error)", sourceLocation: sourceLocation) }
        for (name, problem) in results.failures.sorted(by: { $0.0 < $1.0 }) {
            Issue.record("case \(name): \(problem)", sourceLocation: sourceLocation)
        }
    }

    // MARK: - The field-mutation corpus

    /// Values for a field: the edges of its width, the edges of a signed 64-bit offset, and its real value ±1.
    static func candidates(for field: ZipImage.Field) -> [UInt64] {
        let maximum: UInt64 = field.width == 8 ? .max : (1 << (8 * UInt64(field.width))) - 1
        var values: [UInt64]
        if field.name.hasSuffix(".time") || field.name.hasSuffix(".date") {
            values = [0, maximum]
        } else if field.name.hasSuffix(".signature") {
            values = [0, field.value + 1]
        } else {
            values = [0, 1, maximum, maximum - 1]
            if field.value > 0 { values.append(field.value - 1) }
            if field.value < maximum { values.append(field.value + 1) }
            if field.width == 8 {
                values += [1 << 62, (1 << 62) - 1, (1 << 62) + field.value, 1 << 63, (1 << 63) - 1, (1 << 63) + 1]
            }
            if field.width == 4 { values += [0x7FFF_FFFF, 0x8000_0000] }
        }
        if field.name.hasSuffix(".flags") {
            // Encryption, data descriptor, strong encryption, masked headers.
            values += [field.value | 0x1, field.value | 0x8, field.value | 0x40, field.value | 0x2000]
        }
        if field.name.hasSuffix(".method") {
            // Shrunk, imploded, deflate64, bzip2, LZMA, zstd, xz, AES.
            values += [1, 6, 9, 12, 14, 93, 95, 99]
        }
        var seen = Set<UInt64>()
        return values.filter { $0 != field.value && seen.insert($0).inserted }
    }

    /// Fields whose value no reader relies on, so a changed value may be accepted (still signature-checked).
    static func harmless(_ field: ZipImage.Field, _ value: UInt64) -> Bool {
        let name = field.name
        if name == "zip64EndRecord.versionNeeded" { return value >= 45 }
        if name.hasPrefix("zip64EndRecord.") { return name == "zip64EndRecord.versionMadeBy" }
        if name == "zip64Locator.totalDisks" { return value == 0 }
        // In the ZIP64 form the classic disk numbers may say "see ZIP64" as well as 0.
        if name == "endRecord.disk" || name == "endRecord.directoryDisk" { return value == 0xFFFF }
        return [".time", ".date", ".versionMadeBy", ".versionNeeded", ".internalAttributes", ".externalAttributes"]
            .contains { name.hasSuffix($0) }
    }

    static func mutations(of image: ZipImage, _ form: ZipImage.Form, entries: Set<Int>, fieldFilter: (String) -> Bool)
        -> [Case]
    {
        let (bytes, fields) = image.write(form)
        var cases: [Case] = []
        for field in fields {
            if field.name.hasPrefix("entry") {
                let index = Int(field.name.dropFirst("entry".count).prefix { $0.isNumber }) ?? -1
                guard entries.contains(index) else { continue }
            }
            guard fieldFilter(field.name) else { continue }
            for value in candidates(for: field) {
                cases.append(
                    Case(
                        name: "\(form).\(field.name)=\(value)", bytes: bytes.patching(field, with: value),
                        expectation: harmless(field, value) ? .eitherOutcome : .malformed))
            }
        }
        return cases
    }

    @Test func everyClassicHeaderFieldMutated() async throws {
        let corpus = try Corpus()
        // The manifest (read before the signature is checked), the signature, and the last content entry.
        let cases = Self.mutations(
            of: corpus.image, .classic, entries: [0, 1, corpus.lastIndex], fieldFilter: { _ in true })
        #expect(cases.count > 300)
        try await Self.check(cases, corpus: corpus)
    }

    @Test func everyZIP64FieldMutated() async throws {
        let corpus = try Corpus()
        let zip64Relevant = [
            ".zip64.", ".compressedSize", ".uncompressedSize", ".localHeaderOffset", ".extraLength",
            ".versionNeeded",
        ]
        let cases = Self.mutations(
            of: corpus.image, .zip64, entries: [0, 1, corpus.lastIndex],
            fieldFilter: { name in !name.hasPrefix("entry") || zip64Relevant.contains { name.contains($0) } })
        #expect(cases.count > 300)
        try await Self.check(cases, corpus: corpus)
    }

    @Test func truncatedAtManyLengths() async throws {
        let corpus = try Corpus()
        var cases: [Case] = []
        for form in [ZipImage.Form.classic, .zip64] {
            let bytes = corpus.image.write(form).bytes
            var lengths = Set(stride(from: 0, to: bytes.count, by: max(1, bytes.count / 60)))
            for edge in [1, 21, 22, 23, 45, 46, 77, 98] where edge < bytes.count {
                lengths.insert(edge)
                lengths.insert(bytes.count - edge)
            }
            for length in lengths.sorted() {
                cases.append(
                    Case(
                        name: "\(form).truncated-to-\(length)", bytes: Array(bytes.prefix(length)),
                        expectation: .malformed))
            }
        }
        try await Self.check(cases, corpus: corpus)
    }

    // MARK: - Targeted cases

    /// Valid packages in both forms are read: the validator refuses structure, not ZIP64 itself.
    @Test(arguments: [ZipImage.Form.classic, .zip64])
    func rewrittenValidPackageStillVerifies(form: ZipImage.Form) async throws {
        let corpus = try Corpus()
        let url = try corpus.write("valid-\(form)", corpus.image.write(form).bytes)
        let store = try corpus.storeCopy("valid-\(form)")
        let outcome = try await Self.runChild(package: url, publicKey: corpus.publicKey, store: store)
        #expect(outcome.abnormal == nil, "\(outcome)")
        #expect(outcome.results["VERIFY"] == "ok 2.0.0", "\(outcome)")
        #expect(outcome.results["INSPECT"] == "ok 2.0.0", "\(outcome)")
        #expect(outcome.results["INSTALL"] == "ok 2.0.0", "\(outcome)")
    }

    /// What real zips legitimately vary in is still accepted: an archive comment, empty files, stored (already
    /// compressed) files, non-ASCII names, in both forms. The validator must refuse lies, not variety.
    @Test(arguments: [ZipImage.Form.classic, .zip64])
    func legitimateVariationsStillVerify(form: ZipImage.Form) async throws {
        let corpus = try Corpus()
        var files = Fixture.files(version: "2.0.0")
        files["empty.css"] = ""
        files["img/photo.png"] = String(repeating: "not really a png ", count: 50)
        files["fonts/ünïcødé €.txt"] = "text"
        let package = try corpus.fixture.pack("2.0.0", files: files, id: "com.example.variety")
        let image = try ZipImage(parsing: [UInt8](try Data(contentsOf: package)))
        #expect(image.entries.contains { $0.method == 0 && !$0.data.isEmpty && $0.path.hasSuffix(".png") })
        var bytes = image.write(form).bytes
        // An archive comment (which may even contain an end-record signature) after the end record.
        let comment = [UInt8]("built by a release script PK\u{05}\u{06} end".utf8)
        bytes[bytes.count - 2] = UInt8(comment.count)
        bytes += comment
        let outcome = try await Self.runChild(
            package: try corpus.write("variety-\(form)", bytes), publicKey: corpus.publicKey)
        #expect(outcome.abnormal == nil, "\(outcome)")
        #expect(outcome.results["VERIFY"] == "ok 2.0.0", "\(outcome)")
        #expect(outcome.results["INSPECT"] == "ok 2.0.0", "\(outcome)")
    }

    /// A stored entry claiming 2^60 bytes in its ZIP64 fields, made from a signed package without the key. Past the
    /// end of the file ZIPFoundation counts each empty read as a full 256 KiB chunk, so reading it spun through
    /// 2^42 empty reads at full CPU: forever, in practice.
    @Test func hugeZIP64StoredEntrySpin() async throws {
        let corpus = try Corpus()
        var image = corpus.image
        let big = try corpus.index(of: "content/zz-big.js")
        var entry = image.entries.remove(at: big)
        entry.method = 0
        entry.zip64Sizes = (1 << 60, 1 << 60)
        image.entries.append(entry)
        try await expectRefusedWithOldVersionServing(
            corpus, "huge-zip64-stored", image.write(.zip64).bytes, as: "archiveMalformed.entryOutOfBounds")
    }

    /// An encrypted entry the manifest does not list, last in the zip: ZIPFoundation's iteration ended at it, so
    /// it was never checked and the package was accepted.
    @Test func unlistedEncryptedLastEntry() async throws {
        let corpus = try Corpus()
        var image = corpus.image
        let payload = [UInt8]("alert('unlisted')".utf8)
        image.entries.append(
            ZipImage.Entry(
                name: [UInt8]("content/evil.js".utf8), versionMadeBy: 0x0314, versionNeeded: 20, flags: 0x0801,
                method: 0, time: 0, date: 0x21, crc32: 0, uncompressedSize: UInt64(payload.count),
                internalAttributes: 0, externalAttributes: 0o100644 << 16, data: payload, zip64Sizes: nil))
        try await expectRefusedWithOldVersionServing(
            corpus, "unlisted-encrypted-last", image.write(.classic).bytes, as: "archiveMalformed.encryptedEntry")
    }

    /// Deflate data that cannot be inflated is the archive's fault, not the file system's.
    @Test func corruptDeflateData() async throws {
        let corpus = try Corpus()
        var image = corpus.image
        let index = try #require(image.entries.lastIndex { $0.method == 8 })
        image.entries[index].data = [UInt8](repeating: 0xFF, count: image.entries[index].data.count)
        // The structure is sound, so `hybrid serve` (which reads only the manifest) may list it; reading it may not.
        try await expectRefusedWithOldVersionServing(
            corpus, "corrupt-deflate", image.write(.classic).bytes, as: "archiveUnreadable", inspectReadsIt: false)
    }

    /// An unsupported method named consistently in both headers of the manifest (read before the signature).
    @Test func unsupportedMethodOnTheManifest() async throws {
        let corpus = try Corpus()
        var image = corpus.image
        image.entries[try corpus.index(of: "manifest.json")].method = 12
        try await expectRefusedWithOldVersionServing(
            corpus, "bzip2-manifest", image.write(.classic).bytes,
            as: "archiveMalformed.unsupportedCompressionMethod")
    }

    /// The reported trap: a ZIP64 local-header offset on an entry read before the signature. At 2^63 and above
    /// ZIPFoundation trapped (SIGILL converting it to `off_t`); at 2^62 it silently ended its iteration there.
    @Test(arguments: [UInt64(1) << 62, UInt64(1) << 63, UInt64.max])
    func zip64LocalHeaderOffsetOnTheSignature(offset: UInt64) async throws {
        let corpus = try Corpus()
        let (bytes, fields) = corpus.image.write(.zip64)
        let field = try #require(
            fields.first { $0.name.hasPrefix("entry1(") && $0.name.hasSuffix(".zip64.localHeaderOffset") })
        try await expectRefusedWithOldVersionServing(
            corpus, "zip64-offset-\(offset)", bytes.patching(field, with: offset), as: "archiveMalformed")
    }

    /// Verify, inspect (unless `inspectReadsIt` is false: it reads only the manifest) and install in a child all
    /// refuse `bytes`, verify and install with `caseName` (a prefix), and the store the child installed into still
    /// serves 1.0.0, intact.
    func expectRefusedWithOldVersionServing(
        _ corpus: Corpus, _ name: String, _ bytes: [UInt8], as caseName: String, inspectReadsIt: Bool = true,
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let url = try corpus.write(name, bytes)
        let storeRoot = try corpus.storeCopy(name)
        let outcome = try await Self.runChild(package: url, publicKey: corpus.publicKey, store: storeRoot)
        let operations = inspectReadsIt ? ["VERIFY", "INSPECT", "INSTALL"] : ["VERIFY", "INSTALL"]
        for problem in Self.problems(outcome, .refused, operations: operations) {
            Issue.record("case \(name): \(problem) — \(outcome)", sourceLocation: sourceLocation)
        }
        for operation in ["VERIFY", "INSTALL"] {
            let refusal = outcome.refusal(operation) ?? ""
            #expect(refusal.hasPrefix(caseName), "\(name) \(operation): \(outcome)", sourceLocation: sourceLocation)
        }
        let store = try PackageStore(
            root: storeRoot, trustedKey: corpus.fixture.keyPair.verificationKey, integrityCheck: .hashes)
        #expect(store.activeVersion("com.example.shop") == "1.0.0", sourceLocation: sourceLocation)
        #expect(store.installedVersions("com.example.shop") == ["1.0.0"], sourceLocation: sourceLocation)
        #expect(store.repairReport.isClean, "\(store.repairReport)", sourceLocation: sourceLocation)
    }
}
