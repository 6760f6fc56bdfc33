import Foundation
import HybridTestSupport
import Testing

/// `hybrid cookies`, run as a user would: lines on standard input, one output line per GET.
@Suite struct CookiesCommandTests {
    func run(_ input: String) throws -> (output: String, errors: String, status: Int32) {
        let hybrid = try #require(
            builtExecutable(named: "hybrid"), "the hybrid executable was not built next to the tests")
        let process = Process()
        process.executableURL = hybrid
        process.arguments = ["cookies"]
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let output = stdout.fileHandleForReading.readDataToEndOfFile()
        let errors = stderr.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (
            String(decoding: output, as: UTF8.self), String(decoding: errors, as: UTF8.self), process.terminationStatus
        )
    }

    @Test func answersEachGetWithOneLine() throws {
        let result = try run(
            """
            # a session cookie, and one whose Expires holds a comma
            SET https://a.example/login sid=1; Path=/; HttpOnly
            SET https://a.example/ pref=dark; Expires=Wed, 21 Oct 2099 07:28:00 GMT; Domain=a.example
            SET https://a.example/ evil=1; Domain=co.uk
            GET https://a.example/account
            GET https://b.a.example/
            GET https://other.example/

            """)
        #expect(result.output == "sid=1; pref=dark\npref=dark\n\n")
        #expect(result.errors.isEmpty)
        #expect(result.status == 0)
    }

    @Test func malformedLinesAreReportedAndGetsStayAligned() throws {
        let result = try run("GET not-a-url\nFROB x\nGET https://a.example/\n")
        #expect(result.output == "\n\n")
        #expect(result.errors.contains("not an absolute URL") && result.errors.contains("unknown command"))
        #expect(result.status == 1)
    }
}
