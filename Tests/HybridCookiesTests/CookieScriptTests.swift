import Foundation
import Testing

@testable import HybridCookies

@Suite("CookieScript (hybrid cookies subcommand engine)")
struct CookieScriptTests {
    @Test func conformanceScript() {
        let script = CookieScript()
        let result = script.run(
            script: """
                # comments and blank lines are ignored

                SET http://home.example.org:8888/cookie-parser?parser0001 foo=bar
                GET http://home.example.org:8888/cookie-parser-result?parser0001
                SET http://home.example.org:8888/dir/page a=1; Expires=Wed, 09 Jun 2100 10:18:14 GMT
                GET http://home.example.org:8888/dir/x
                SET http://home.example.org:8888/ b="quoted, value"; Path=/; Unknown=x
                GET http://home.example.org:8888/
                SET http://home.example.org:8888/ foo=; Max-Age=0
                GET http://home.example.org:8888/
                SET http://home.example.org:8888/ c=1; Domain=example.org
                GET http://sub.example.org/
                SET http://home.example.org:8888/ d=1; Domain=org
                GET http://other.org/
                SET http://home.example.org:8888/   spaced = v 
                GET http://home.example.org/
                """)
        #expect(
            result.output == [
                "foo=bar",
                "a=1; foo=bar",
                "foo=bar; b=\"quoted, value\"",
                "b=\"quoted, value\"",
                "c=1",
                "",
                "b=\"quoted, value\"; c=1; spaced=v",
            ])
        #expect(result.errors.isEmpty)
    }

    @Test func malformedLinesAreErrors() {
        let script = CookieScript()
        #expect(
            script.execute("PUT http://x/")
                == .error("unknown command (expected SET or GET): PUT http://x/"))
        if case .error = script.execute("SET http://example.com/") {
        } else {
            Issue.record("expected error")
        }
        if case .error = script.execute("GET not a url") {} else { Issue.record("expected error") }
        #expect(script.execute("SET http://example.com/ a=1\r") == .silent)
        #expect(script.execute("GET http://example.com/") == .output("a=1"))
    }
}
