import Foundation
import HybridKit
import Testing

struct SchemePolicyTests {
    let policy = SchemePolicy(appSchemes: ["hybrid", "App"])

    func disposition(_ text: String, mainFrame: Bool = true) throws -> URLDisposition {
        policy.disposition(of: try #require(URL(string: text)), isMainFrame: mainFrame)
    }

    @Test func webAndAppSchemesLoad() throws {
        #expect(try disposition("https://shop.example.com/a") == .load)
        #expect(try disposition("http://127.0.0.1:8080/") == .load)
        #expect(try disposition("hybrid://shop.example.com/app/") == .load)
        #expect(try disposition("app://demo/index.html") == .load)
        #expect(try disposition("about:blank") == .load)
        #expect(try disposition("about:srcdoc") == .load)
    }

    @Test func systemSchemesGoOut() throws {
        #expect(try disposition("tel:+8613800000000") == .external(.phone))
        #expect(try disposition("TEL:10086") == .external(.phone))
        #expect(try disposition("sms:10086") == .external(.sms))
        #expect(try disposition("mailto:a@example.com?subject=hi") == .external(.mail))
        #expect(try disposition("itms-apps://itunes.apple.com/app/id1") == .external(.appStore))
        #expect(try disposition("itms-appss://apps.apple.com/app/id1") == .external(.appStore))
        #expect(try disposition("market://details?id=com.example") == .external(.appStore))
        #expect(try disposition("intent://scan/#Intent;scheme=zxing;end") == .external(.intent))
        #expect(try disposition("weixin://dl/business") == .external(.other))
    }

    @Test func storeWebLinksGoOutButOtherPagesOfTheirHostsDoNot() throws {
        #expect(try disposition("https://apps.apple.com/cn/app/id414478124") == .external(.appStore))
        #expect(try disposition("https://itunes.apple.com/app/id1") == .external(.appStore))
        #expect(try disposition("https://play.google.com/store/apps/details?id=x") == .external(.appStore))
        #expect(try disposition("https://play.google.com/about") == .load)
    }

    @Test func dataAndBlobOnlyInSubframes() throws {
        #expect(try disposition("data:text/html,<b>x</b>", mainFrame: false) == .load)
        guard case .blocked = try disposition("data:text/html,<b>x</b>", mainFrame: true) else {
            Issue.record("a top-level data: URL must be blocked")
            return
        }
    }

    @Test func dataURLsLoadWhenTheEngineCannotTellTheFrame() throws {
        let url = try #require(URL(string: "data:text/html,x"))
        #expect(policy.disposition(of: url, isMainFrame: nil) == .load)
        #expect(try disposition("blob:https://shop.example/1234") == .load)
    }

    @Test func localFilesAndOddAboutURLsAreBlocked() throws {
        guard case .blocked = try disposition("file:///etc/passwd") else {
            Issue.record("file: must be blocked")
            return
        }
        guard case .blocked = try disposition("about:config") else {
            Issue.record("about:config must be blocked")
            return
        }
    }
}

struct DownloadDetectorTests {
    func response(
        _ url: String, mime: String?, canShow: Bool, headers: [(name: String, value: String)] = [],
        suggested: String? = nil
    ) throws -> NavigationResponse {
        NavigationResponse(
            url: try #require(URL(string: url)), statusCode: 200, mimeType: mime, isMainFrame: true,
            canShowMIMEType: canShow, headers: headers, suggestedFilename: suggested)
    }

    @Test func attachmentsAreDownloadsEvenWhenShowable() throws {
        let found = DownloadDetector.download(
            for: try response(
                "https://x.example/get?id=1", mime: "text/html", canShow: true,
                headers: [("content-disposition", "attachment; filename=\"report.html\"")]))
        #expect(found?.suggestedFilename == "report.html")
        #expect(found?.mimeType == "text/html")
    }

    @Test func unshowableTypesAreDownloadsNamedAfterTheURL() throws {
        let found = DownloadDetector.download(
            for: try response("https://x.example/files/app.zip", mime: "application/zip", canShow: false))
        #expect(
            found
                == EngineDownload(
                    url: try #require(URL(string: "https://x.example/files/app.zip")), suggestedFilename: "app.zip",
                    mimeType: "application/zip"))
    }

    @Test func pagesAndInlineDispositionsAreNot() throws {
        #expect(
            DownloadDetector.download(for: try response("https://x.example/", mime: "text/html", canShow: true)) == nil)
        #expect(
            DownloadDetector.download(
                for: try response(
                    "https://x.example/a.pdf", mime: "text/plain", canShow: true,
                    headers: [("Content-Disposition", "inline; filename=a.txt")])) == nil)
    }

    @Test func filenamesPreferRFC6266AndLoseDirectories() {
        #expect(
            DownloadDetector.filename(
                fromContentDisposition: "attachment; filename=\"fallback.txt\"; filename*=UTF-8''%E6%8A%A5%E5%91%8A.pdf"
            )
                == "报告.pdf")
        #expect(
            DownloadDetector.filename(fromContentDisposition: "attachment; filename=\"../../etc/passwd\"") == "passwd")
        #expect(DownloadDetector.filename(fromContentDisposition: "attachment; filename=\"..\"") == nil)
        #expect(DownloadDetector.filename(fromContentDisposition: "attachment") == nil)
    }
}

struct UserAgentPolicyTests {
    @Test func appendsOverridesOrKeeps() {
        let base = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/605.1.15"
        #expect(UserAgentPolicy.engineDefault.resolve(engineDefault: base) == base)
        #expect(UserAgentPolicy.appending("Shop/2.1").resolve(engineDefault: base) == base + " Shop/2.1")
        #expect(UserAgentPolicy.appending("").resolve(engineDefault: base) == base)
        #expect(UserAgentPolicy.replacing("Bot/1").resolve(engineDefault: base) == "Bot/1")
    }

    @Test func nativeRequestsGetTheSameValue() throws {
        let request = ProxiedRequest(
            url: try #require(URL(string: "https://x.example/")), headers: [("user-agent", "page"), ("A", "1")])
        let sent = request.settingUserAgent("Shop/2.1")
        #expect(sent.headers.map(\.name) == ["A", "User-Agent"])
        #expect(sent.headers.last?.value == "Shop/2.1")
    }
}
