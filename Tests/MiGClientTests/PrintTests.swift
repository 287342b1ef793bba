import Foundation
import IPP
import Kernel
import MiGClient
import NIOCore
import PrintDocuments
import TestSupport
import Testing
import Wire
import WireHTTP

/// Print-Job on the simulated wire against canned servers: what goes out, framing, progress, error mapping.
@Suite struct PrintTests {
    @Test func printJobCarriesTheOptionsAndTheDocument() throws {
        let world = SimulatedWorld()
        let recorder = try world.startIPPServer { IPPAnswer.jobCreated($0, id: 42) }
        let client = try world.client()
        let document: [UInt8] = Array("%PDF-1.4 hello".utf8)
        let options = PrintOptions(
            jobName: "report.pdf", copies: 2, sides: "two-sided-long-edge", media: "iso_a4_210x297mm",
            pageRanges: [1...3, 5...5], documentFormat: "application/pdf")
        let job = try world.run { try await client.print(.bytes(document, name: "x.pdf"), options: options) }

        #expect(job.id == 42)
        #expect(job.uri == "ipp://mig:8050/ipp/print/42")
        #expect(job.state == .pending)
        #expect(job.attempts == 1)
        #expect(job.bytesSent == Int64(document.count))
        let request = try #require(recorder.requests.first)
        #expect(request.method == .POST)
        #expect(request.path == "/ipp/print")
        #expect(request.headers.first(name: "Content-Type") == "application/ipp")
        #expect(request.headers.first(name: "Authorization") == BasicCredentials(user: "demo", password: "secret").headerValue)
        #expect(request.headers.first(name: "Expect") == "100-continue")
        #expect(request.headers.first(name: "Transfer-Encoding") == "chunked")
        let ipp = try #require(request.ipp)
        #expect(ipp.operation == .printJob)
        #expect(ipp.printerURI == "ipp://mig:8050/ipp/print")
        #expect(ipp.jobName == "report.pdf")
        #expect(ipp.requestingUserName == "demo")
        #expect(ipp.ippAttributeFidelity == true)
        #expect(ipp.documentFormat == "application/pdf")
        #expect(ipp.copies == 2)
        #expect(ipp.sides == "two-sided-long-edge")
        #expect(ipp.media == "iso_a4_210x297mm")
        #expect(ipp.pageRanges == [IPPRange(1, 3), IPPRange(5, 5)])
        #expect(request.document == document)
        #expect(world.kernel.loop.violations.isEmpty)
    }

    @Test(arguments: [BodyFraming.chunked, .contentLength])
    func largeDocumentsStreamWithProgress(framing: BodyFraming) throws {
        let world = SimulatedWorld()
        let recorder = try world.startIPPServer { IPPAnswer.jobCreated($0, id: 1) }
        let client = try world.client()
        let progress = ProgressLog()
        let size: Int64 = 3_000_000
        let job = try world.run {
            try await client.print(try .generated(byteCount: size), options: PrintOptions(framing: framing), progress: progress.handler)
        }
        #expect(job.bytesSent == size)
        let request = try #require(recorder.requests.first)
        #expect(Int64(request.document.count) == size)
        #expect(request.ipp?.documentFormat == "application/pdf")
        #expect(try PDFReader.pageCount(request.document) == 30)
        switch framing {
        case .chunked:
            #expect(request.headers.first(name: "Transfer-Encoding") == "chunked")
            #expect(request.headers.first(name: "Content-Length") == nil)
        case .contentLength:
            #expect(request.headers.first(name: "Transfer-Encoding") == nil)
            let ippBytes = try request.ipp!.encoded().count
            #expect(request.headers.first(name: "Content-Length") == "\(Int64(ippBytes) + size)")
        }
        // One callback per 64 KiB chunk handed to the transport, rising to the total.
        let entries = progress.entries
        #expect(entries.count == Int((size + 65_535) / 65_536))
        #expect(entries.map(\.sent) == entries.map(\.sent).sorted())
        #expect(entries.last?.sent == size)
        #expect(entries.allSatisfy { $0.total == size })
    }

    @Test func aFileIsStreamedFromDisk() throws {
        let path = NSTemporaryDirectory() + "migclient-\(UUID().uuidString).pdf"
        let content = (0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        #expect(FileManager.default.createFile(atPath: path, contents: Data(content)))
        defer { try? FileManager.default.removeItem(atPath: path) }
        let world = SimulatedWorld()
        let recorder = try world.startIPPServer { IPPAnswer.jobCreated($0, id: 3) }
        let client = try world.client()
        let job = try world.run { try await client.print(.file(path)) }
        #expect(job.bytesSent == 200_000)
        let request = try #require(recorder.requests.first)
        #expect(request.document == content)
        #expect(request.ipp?.documentFormat == "application/pdf")
        #expect(request.ipp?.jobName == path.split(separator: "/").last.map(String.init))
    }

    @Test func gzipCompressesTheDocumentWhileStreaming() throws {
        let world = SimulatedWorld()
        let recorder = try world.startIPPServer { IPPAnswer.jobCreated($0, id: 4) }
        let client = try world.client()
        let content = (0..<2_000_000).map { UInt8(truncatingIfNeeded: ($0 / 100) % 7) }
        let progress = ProgressLog()
        let job = try world.run {
            try await client.print(
                .bytes(content, format: "application/pdf"), options: PrintOptions(compression: .gzip),
                progress: progress.handler)
        }
        let request = try #require(recorder.requests.first)
        #expect(request.ipp?.compression == "gzip")
        #expect(request.headers.first(name: "Transfer-Encoding") == "chunked")
        #expect(request.headers.first(name: "Content-Encoding") == nil)
        #expect(request.document.prefix(2) == [0x1F, 0x8B])
        #expect(request.document.count < content.count / 10)
        #expect(job.bytesSent == Int64(request.document.count))
        #expect(progress.entries.allSatisfy { $0.total == nil })
        #expect(try gunzip(request.document) == content)

        let error = try world.run {
            await expectMiGError { try await client.print(.bytes(content), options: PrintOptions(framing: .contentLength, compression: .gzip)) }
        }
        guard case .invalidConfiguration = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
    }

    @Test func aMissingFileFailsBeforeConnecting() throws {
        let world = SimulatedWorld()
        let recorder = try world.startIPPServer { IPPAnswer.jobCreated($0, id: 3) }
        let client = try world.client()
        let error = try world.run { await expectMiGError { try await client.print(.file("/nonexistent/doc.pdf")) } }
        guard case .documentUnreadable(let text) = error else {
            Issue.record("got \(String(describing: error))")
            return
        }
        #expect(text.contains("/nonexistent/doc.pdf"))
        #expect(recorder.requests.isEmpty)
    }

    @Test func wrongPasswordIsUnauthorizedWithTheRealm() throws {
        let world = SimulatedWorld()
        try world.startIPPServer { _ in
            .text(.unauthorized, "wrong user name or password", headers: ["WWW-Authenticate": "Basic realm=\"MiG print\""])
        }
        let client = try world.client(url: "http://demo:wrong@mig:8050/ipp/print")
        let error = try world.run { await expectMiGError { try await client.print(try .generated(byteCount: 500_000)) } }
        #expect(error == .unauthorized(realm: "MiG print"))
    }

    @Test func aWrongPathIsNotFound() throws {
        let world = SimulatedWorld()
        try world.startIPPServer { request in
            request.path == "/ipp/print" ? IPPAnswer.jobCreated(request, id: 1) : .text(.notFound, "no such page")
        }
        let client = try world.client(url: "http://demo:secret@mig:8050/ipp/printer")
        let error = try world.run { await expectMiGError { try await client.print(.bytes([1, 2, 3])) } }
        #expect(error == .notFound(path: "/ipp/printer"))
    }

    @Test func otherHTTPStatusesAndNonIPPAnswersAreNamed() throws {
        let world = SimulatedWorld()
        let counter = Counter()
        try world.startIPPServer { _ in
            counter.next() == 1 ? .text(.payloadTooLarge, "the request body exceeds the limit") : .text(.ok, "<html>hello</html>")
        }
        let client = try world.client()
        let first = try world.run { await expectMiGError { try await client.print(.bytes([1])) } }
        #expect(first == .httpStatus(code: 413, reason: "Payload Too Large", body: "the request body exceeds the limit"))
        let second = try world.run { await expectMiGError { try await client.print(.bytes([1])) } }
        guard case .malformedResponse(let text) = second else {
            Issue.record("got \(String(describing: second))")
            return
        }
        #expect(text.contains("text/plain"))
    }

    @Test func nginxsMissingCertificatePageIsAClientCertificateRejection() throws {
        let world = SimulatedWorld()
        try world.startIPPServer { _ in
            HTTPResponse(
                status: .badRequest, headers: ["Content-Type": "text/html"],
                body: ByteBuffer(
                    string:
                        "<html>\r\n<head><title>400 No required SSL certificate was sent</title></head>\r\n<body></body></html>"))
        }
        let client = try world.client()
        let error = try world.run { await expectMiGError { try await client.print(.bytes([1])) } }
        #expect(error == .tlsClientCertificateRejected("the TLS proxy answered 400: 400 No required SSL certificate was sent"))
    }

    @Test func ippErrorsCarryTheStatusMessage() throws {
        let world = SimulatedWorld()
        try world.startIPPServer { IPPAnswer.status($0, .documentFormatNotSupported, message: "image/gif is not supported") }
        let client = try world.client()
        let error = try world.run { await expectMiGError { try await client.print(.bytes([1], format: "image/gif")) } }
        #expect(error == .ipp(status: .documentFormatNotSupported, message: "image/gif is not supported"))
    }

    @Test func connectionFailuresAreNamed() throws {
        let world = SimulatedWorld()
        let refused = try world.client()
        let error = try world.run { await expectMiGError { try await refused.print(.bytes([1])) } }
        #expect(error == .connectionRefused("mig:8050"))
        let unknown = try world.client(url: "ipp://nowhere:631/ipp/print")
        let unknownError = try world.run { await expectMiGError { try await unknown.print(.bytes([1])) } }
        #expect(unknownError == .unknownHost("nowhere"))
    }
}

/// Runs `body` expecting a `MiGError`; records an issue when it succeeds or throws something else.
func expectMiGError<T>(_ body: () async throws -> T) async -> MiGError? {
    do {
        let value = try await body()
        Issue.record("expected a MiGError, got \(value)")
        return nil
    } catch let error as MiGError {
        return error
    } catch {
        Issue.record("expected a MiGError, got \(error)")
        return nil
    }
}

/// Decompresses with the system's gzip, a decoder independent of the client's zlib use.
func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
    let run = try ExternalProcess.run("/bin/gzip", ["-dc"], input: Data(bytes))
    guard run.status == 0 else { throw InteropError("gzip -dc failed: \(run.stderr)") }
    return run.stdoutBytes
}
