import Foundation
import HybridKit
import Testing

struct WebURLBuilderTests {
    @Test func encodesSpacesAndNonASCIIInPathQueryAndFragment() throws {
        let url = try WebURLBuilder.url("https://shop.example.com/商品 列表/a b.html?q=鞋 子&x=1#第 2 节")
        #expect(
            url.absoluteString
                == "https://shop.example.com/%E5%95%86%E5%93%81%20%E5%88%97%E8%A1%A8/a%20b.html"
                + "?q=%E9%9E%8B%20%E5%AD%90&x=1#%E7%AC%AC%202%20%E8%8A%82")
        #expect(url.path == "/商品 列表/a b.html")
    }

    @Test func keepsSequencesAlreadyEncoded() throws {
        let text = "https://x.example/a%20b/%E5%95%86?q=%2F%3F&r=50%"
        #expect(try WebURLBuilder.url(text).absoluteString == "https://x.example/a%20b/%E5%95%86?q=%2F%3F&r=50%25")
        let once = try WebURLBuilder.url("https://x.example/商 品")
        #expect(try WebURLBuilder.url(once.absoluteString) == once)
    }

    @Test func internationalHostsBecomePunycode() throws {
        #expect(try WebURLBuilder.url("https://bücher.example/x").host == "xn--bcher-kva.example")
        #expect(try WebURLBuilder.url("http://例え.テスト:8080/").absoluteString == "http://xn--r8jz45g.xn--zckzah:8080/")
        #expect(try WebURLBuilder.url("https://中文.com/").host == "xn--fiq228c.com")
        #expect(try WebURLBuilder.url("HTTPS://Example.COM/A").absoluteString == "https://example.com/A")
    }

    @Test func keepsWhatIsAlreadyValid() throws {
        for text in [
            "https://user:pw@x.example:8443/p/a;b=c?x=1&y=%26#top", "http://[::1]:8080/x", "mailto:a@example.com",
            "tel:+8613800000000", "hybrid://shop.example.com/app/index.html",
        ] {
            #expect(try WebURLBuilder.url(text).absoluteString == text)
        }
    }

    @Test func refusesWhatCannotBeAURL() {
        #expect(throws: WebURLError.noScheme("no scheme here")) { try WebURLBuilder.url("no scheme here") }
        #expect(throws: WebURLError.badHost("https://a b.example/")) { try WebURLBuilder.url("https://a b.example/") }
        #expect(throws: WebURLError.badHost("https://x.example:80a/")) {
            try WebURLBuilder.url("https://x.example:80a/")
        }
    }
}
