import Foundation
import Testing

@testable import HybridCookies

@Suite("Persistence")
struct PersistenceTests {
    @Test func roundtripKeepsPersistentCookiesOnly() throws {
        let directory = try makeCookieTestDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileCookieJarStore(fileURL: directory.appendingPathComponent("cookies.json"))
        let clock = ManualCookieClock()
        let jar = try CookieJar.open(store: store, clock: clock.clock)
        #expect(jar.count == 0)  // missing file is fine
        jar.set(
            "persistent=1; Max-Age=3600; Domain=example.com; Path=/p; Secure; HttpOnly; SameSite=Strict",
            "https://www.example.com/")
        jar.set("session=1", "https://example.com/")
        #expect(jar.hasUnsavedChanges)
        try jar.flush()
        #expect(!jar.hasUnsavedChanges)

        let reopened = try CookieJar.open(store: store, clock: clock.clock)
        let cookies = reopened.allCookies()
        #expect(cookies.count == 1)
        #expect(cookies.first == jar.allCookies().first { $0.name == "persistent" })
        #expect(!reopened.hasUnsavedChanges)
    }

    @Test func expiredCookiesAreNotLoaded() throws {
        let clock = ManualCookieClock()
        let store = InMemoryCookieJarStore()
        let jar = CookieJar(store: store, clock: clock.clock)
        jar.set("a=1; Max-Age=10", "https://example.com/")
        jar.set("b=1; Max-Age=1000", "https://example.com/")
        try jar.flush()
        clock.advance(20)
        let reopened = try CookieJar.open(store: store, clock: clock.clock)
        #expect(reopened.allCookies().map(\.name) == ["b"])
    }

    @Test func flushWithoutChangesDoesNotWrite() throws {
        let directory = try makeCookieTestDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cookies.json")
        let jar = CookieJar(store: FileCookieJarStore(fileURL: file))
        try jar.flush()
        #expect(!FileManager.default.fileExists(atPath: file.path))
        jar.set("a=1; Max-Age=100", "https://example.com/")
        try jar.flush()
        #expect(FileManager.default.fileExists(atPath: file.path))
    }

    @Test func corruptFileIsTypedErrorOrQuarantined() throws {
        let directory = try makeCookieTestDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cookies.json")
        try Data("{\"format\": \"hybridkit-cookie-jar\", \"version\": 1, \"cookies\": [ {\"na".utf8)
            .write(to: file)
        let store = FileCookieJarStore(fileURL: file)

        #expect {
            try CookieJar.open(store: store, corruptDataPolicy: .fail)
        } throws: { error in
            guard case .corrupt(let path, _) = error as? CookieJarStoreError else { return false }
            return path == file.path
        }

        let jar = try CookieJar.open(store: store, corruptDataPolicy: .quarantineAndStartEmpty)
        #expect(jar.count == 0)
        #expect(!FileManager.default.fileExists(atPath: file.path))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
        #expect(names.contains { $0.hasPrefix("cookies.json.corrupt-") })
        jar.set("a=1; Max-Age=100", "https://example.com/")
        try jar.flush()
        #expect(try store.load().count == 1)
    }

    @Test func newerVersionIsReported() throws {
        let directory = try makeCookieTestDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let file = directory.appendingPathComponent("cookies.json")
        try Data("{\"format\": \"hybridkit-cookie-jar\", \"version\": 99, \"cookies\": []}".utf8).write(
            to: file)
        #expect(throws: CookieJarStoreError.unsupportedVersion(path: file.path, version: 99)) {
            try FileCookieJarStore(fileURL: file).load()
        }
    }

    @Test func errorsSayWhatToDo() {
        let error = CookieJarStoreError.writeFailed(path: "/x/cookies.json", step: "fsync", code: 28)
        #expect(error.description.contains("fsync"))
        #expect(error.localizedDescription.contains("previous file is intact"))
    }

    @Test func manyCookiesSurviveAReopen() throws {
        let directory = try makeCookieTestDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let store = FileCookieJarStore(fileURL: directory.appendingPathComponent("cookies.json"))
        let jar = CookieJar(store: store)
        for index in 0..<3000 {
            jar.set(
                "name\(index)=value\(index); Max-Age=86400; Path=/", "https://www.example\(index / 10).com/"
            )
        }
        try jar.flush()
        let reopened = try CookieJar.open(store: store, corruptDataPolicy: .fail)
        #expect(reopened.count == 3000)
    }
}
