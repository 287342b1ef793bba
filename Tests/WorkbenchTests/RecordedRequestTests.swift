import Foundation
import NIOCore
import NIOHTTP1
import TestSupport
import Testing

@testable import IMSSystem
@testable import Workbench

/// `ims request file …`: a request written out as text, like the original example, read back for sending.
@Suite struct RecordedRequestTests {
    @Test func theOriginalExampleReadsAsPrinted() throws {
        let text = try String(contentsOfFile: Repository.fixture("ims/original-sign-request.http"), encoding: .utf8)
        for variant in [text, text.replacingOccurrences(of: "\n", with: "\r\n")] {
            let request = try RecordedRequest(text: variant).request
            #expect(request.method == .POST && request.target == "/sign")
            #expect(request.headers.first(name: "Authorization") == "Bearer CLIENT_AUTHORIZATION_TOKEN")
            #expect(request.headers.first(name: "Content-Type") == "text/plain")
            #expect(request.headers.first(name: "Host") == "www.example.com")
            let body = String(buffer: try #require(request.body))
            #expect(
                body.hasPrefix("eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.") && body.hasSuffix("MjgxfQ"), "the file's last newline is not part of the body"
            )
        }
    }

    @Test func framingIsLeftToTheClient() throws {
        let request = try RecordedRequest(text: "POST /sign HTTP/1.1\nContent-Length: 999\nTransfer-Encoding: chunked\n\nabc\n").request
        #expect(!request.headers.contains(name: "Content-Length") && !request.headers.contains(name: "Transfer-Encoding"))
        #expect(request.body.map { String(buffer: $0) } == "abc")
    }

    @Test(arguments: [
        ("", "expected 'METHOD /path HTTP/1.1'"),
        ("POST sign HTTP/1.1\n\nx", "expected 'METHOD /path HTTP/1.1'"),
        ("POST /sign HTTP/2\n\nx", "expected 'METHOD /path HTTP/1.1'"),
        ("POST /sign HTTP/1.1\nno colon here\n\nx", "header line 2 is 'no colon here'; expected 'Name: value'"),
        ("POST /sign HTTP/1.1\n: empty name\n\nx", "expected 'Name: value'"),
    ])
    func malformedRequestsSayWhatWasExpected(text: String, message: String) {
        #expect { try RecordedRequest(text: text) } throws: { "\($0)".contains(message) }
    }

    @Test func oversizedFilesAreRefused() {
        #expect { try RecordedRequest(text: "POST /sign HTTP/1.1\n\n" + String(repeating: "x", count: RecordedRequest.maxBytes)) } throws: {
            "\($0)".contains("expected at most \(RecordedRequest.maxBytes)")
        }
    }
}
