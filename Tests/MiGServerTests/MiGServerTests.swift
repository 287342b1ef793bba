import Foundation
import IPP
import Kernel
import MiGServer
import NIOCore
import NIOHTTP1
import PrintDocuments
import TestSupport
import Testing
import Wire
import WireHTTP

/// MiG on the simulated wire, spoken to with raw HTTP and IPP (the MiG client has its own tests).
@Suite struct MiGServerTests {
    static let demo = BasicCredentials(user: "demo", password: "demo-password").headerValue

    static func world(seed: UInt64 = 1, _ configure: (inout MiGServer.Configuration) -> Void = { _ in }) throws -> (Kernel, Node, MiGServer) {
        let kernel = Kernel(seed: seed)
        var configuration = MiGServer.Configuration()
        configuration.tlsPort = nil
        configure(&configuration)
        let node = kernel.node("mig")
        let finalConfiguration = configuration
        let server = try kernel.run("start mig") { try await MiGServer.start(on: node, configuration: finalConfiguration).get() }
        return (kernel, kernel.node("phone"), server)
    }

    static func post(
        _ kernel: Kernel, _ phone: Node, _ body: [UInt8], headers: HTTPHeaders = ["Authorization": demo, "Content-Type": "application/ipp"],
        path: String = "/ipp/print", chunked: Bool = false
    ) throws -> HTTPResponse {
        try kernel.run("POST") {
            try await HTTPClient.send(
                HTTPRequest(method: .POST, target: path, headers: headers, body: ByteBuffer(bytes: body), chunked: chunked),
                host: "mig", port: 631, on: phone)
        }
    }

    /// A real PDF of exactly `bytes` bytes, a page per 100,000 of them: what a test that cares only about a
    /// document's size prints (MiG refuses bytes it recognises as none of its formats).
    static func document(_ bytes: Int) throws -> [UInt8] { try PaddedPDF(byteCount: Int64(bytes)).bytes }

    /// A Print-Job request followed by `document`. The default format, application/octet-stream, lets MiG recognise
    /// the document by its first bytes and count its pages; bytes of none of its formats it refuses.
    static func printJob(
        document: [UInt8], format: String = "application/octet-stream", requestID: Int32 = 1,
        _ job: (inout IPPGroupBuilder) -> Void = { _ in }
    ) throws -> [UInt8] {
        var request = IPPMessage.request(.printJob, requestID: requestID) { op in
            op.addPrinterURI("ipp://mig/ipp/print")
            op.addJobName("report.pdf")
            op.addDocumentFormat(format)
        }
        request.addGroup(.job, job)
        return try IPPEncoder().encode(request) + document
    }

    static func ipp(_ response: HTTPResponse) throws -> IPPMessage {
        try IPPDecoder().decode(Array(response.body.readableBytesView))
    }

    @Test func helloAndJobToCompletion() throws {
        let (kernel, phone, server) = try Self.world()
        let hello = try kernel.run("GET /") { try await HTTPClient.send(HTTPRequest(), host: "mig", port: 631, on: phone) }
        #expect(hello.text.contains("MIG hello"))

        let response = try Self.post(
            kernel, phone, try Self.printJob(document: try Self.document(250_000)) { $0.addCopies(2) }, chunked: true)
        #expect(response.status == .ok)
        let answer = try Self.ipp(response)
        #expect(answer.status == .successfulOK)
        #expect(answer.group(.job)?.jobID == 1)
        kernel.advance(by: .seconds(10))
        let job = try #require(try server.jobs().first)
        #expect(job.state == .completed)
        #expect(job.impressions == 6)  // 3 pages of 100 kB, 2 copies
        #expect(job.documentBytes == 250_000)
        #expect(kernel.loop.violations.isEmpty)
    }

    /// As cupsd with `PreserveJobFiles No`: the document leaves the spool once its job is completed; the record stays.
    @Test(arguments: [false, true]) func aDocumentIsDeletedOnceItsJobCompletesUnlessPreserved(preserve: Bool) throws {
        let spool = NSTemporaryDirectory() + "mig-spool-\(getpid())-\(preserve)"
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let (kernel, phone, server) = try Self.world {
            $0.spoolDirectory = spool
            $0.preserveJobFiles = preserve
        }
        let response = try Self.post(kernel, phone, try Self.printJob(document: try Self.document(150_000)))
        #expect(try Self.ipp(response).status == .successfulOK)
        // Under simulation the spool's files are on the node's simulated disk (DiskSpool).
        let disk = kernel.disk(of: "mig")
        let path = "\(spool)/job-1-1.doc"
        #expect(disk.contents(of: path)?.count == 150_000, "spooled whole before the answer")
        #expect(!FileManager.default.fileExists(atPath: spool), "nothing on the machine's disk")
        kernel.advance(by: .seconds(10))
        let job = try #require(try server.jobs().first)
        #expect(job.state == .completed)
        #expect(disk.exists(path) == preserve)
        #expect((job.documentPath != nil) == preserve)
        #expect(kernel.loop.violations.isEmpty)
    }

    @Test func httpRefusalsSayWhatWasExpected() throws {
        let (kernel, phone, _) = try Self.world()
        let body = try Self.printJob(document: [1, 2, 3])
        let anonymous = try Self.post(kernel, phone, body, headers: ["Content-Type": "application/ipp"])
        #expect(anonymous.status == .unauthorized)
        #expect(anonymous.headers.first(name: "WWW-Authenticate") == "Basic realm=\"MiG\"")
        let wrong = try Self.post(
            kernel, phone, body,
            headers: ["Authorization": BasicCredentials(user: "demo", password: "nope").headerValue, "Content-Type": "application/ipp"])
        #expect(wrong.text == "wrong user name or password\n")
        let latin1 = try Self.post(kernel, phone, body, headers: ["Authorization": "Basic 6WFiOng=", "Content-Type": "application/ipp"])
        #expect(latin1.text.contains("not valid UTF-8"))
        let notFound = try Self.post(kernel, phone, body, path: "/ipp/printer")
        #expect(notFound.status == .notFound)
        let wrongType = try Self.post(kernel, phone, body, headers: ["Authorization": Self.demo, "Content-Type": "application/pdf"])
        #expect(wrongType.status == .unsupportedMediaType)
        #expect(wrongType.text.contains("expected Content-Type: application/ipp"))
    }

    /// A body that is not a whole IPP request is answered as RFC 8011 §4.1 asks: HTTP 200 with IPP
    /// client-error-bad-request, the request-id echoed when its header arrived, charset, language and a
    /// status-message that says what was wrong. A body seen to be malformed is answered at once (the rest of it is
    /// dropped and the connection closed); a whole body ends in keep-alive. The actor serves on.
    @Test func malformedIPPIsAnsweredClientErrorBadRequestAndTheActorServesOn() throws {
        let (kernel, phone, _) = try Self.world()
        func expectBadRequest(_ response: HTTPResponse, requestID: Int32, version: IPPVersion, closes: Bool, _ message: String) throws {
            #expect(response.status == .ok)
            #expect(response.headers.first(name: "Content-Type") == "application/ipp")
            #expect(response.headers.first(name: "Connection") == (closes ? "close" : nil))
            let answer = try Self.ipp(response)
            #expect(answer.status == .badRequest)
            #expect(answer.requestID == requestID)
            #expect(answer.version == version)
            #expect(answer.operationAttributes?["attributes-charset"]?.stringValue == "utf-8")
            #expect(answer.operationAttributes?["attributes-natural-language"]?.stringValue == "en")
            #expect(answer.statusMessage == message)
        }
        let valid = try Self.printJob(document: [], requestID: 77)
        try expectBadRequest(
            try Self.post(kernel, phone, Array(valid.prefix(20))), requestID: 77, version: .v2_0, closes: false,
            "The IPP request is truncated: the body ended after 20 bytes, before the end-of-attributes tag.")
        try expectBadRequest(
            try Self.post(kernel, phone, [0x01, 0x01, 0x00, 0x02, 0x00, 0x00, 0x00, 0x05] + Array(repeating: 0xFF, count: 40)),
            requestID: 5, version: .v1_1, closes: true,
            "Malformed IPP request: IPP decode error at byte 8: reserved value tag 0xFF: expected a value tag 0x10-0x7F")
        // Text is no IPP: nothing to echo, and the answer is in IPP/1.1, which every client reads.
        try expectBadRequest(
            try Self.post(kernel, phone, Array("hello, printer".utf8)), requestID: 0x6F2C_2070, version: .v1_1, closes: true,
            "Malformed IPP request: IPP decode error at byte 8: value tag 0x72 before any group: expected operation-attributes-tag (0x01)")
        try expectBadRequest(
            try Self.post(kernel, phone, []), requestID: 0, version: .v1_1, closes: false, "The body is empty; expected an IPP request.")
        let attributes = try IPPEncoder().encode(IPPMessage.request(.getPrinterAttributes, requestID: 9) { $0.addPrinterURI("ipp://mig/ipp/print") })
        let trailing = try Self.ipp(try Self.post(kernel, phone, attributes + [1, 2, 3]))
        #expect(trailing.status == .badRequest)
        #expect(trailing.statusMessage?.contains("3 bytes of unexpected data after the end-of-attributes tag") == true)
        // Still serving.
        #expect(try Self.ipp(try Self.post(kernel, phone, attributes)).status == .successfulOK)
    }

    /// Garbage on MiG's HTTP port gets a 400 that says why (NIO's decoder fails on it), then the port serves on.
    @Test func garbageOnTheHTTPPortIsAnswered400WithTheReasonAndTheActorServesOn() throws {
        let (kernel, phone, _) = try Self.world()
        let answer = try kernel.run("garbage") { try await RawExchange.send(Array("hello there\r\n\r\n".utf8), to: "mig", port: 631, from: phone) }
        #expect(
            String(decoding: answer, as: UTF8.self) == "HTTP/1.1 400 Bad Request\r\nContent-Type: text/plain; charset=utf-8\r\n"
                + "Content-Length: 49\r\nConnection: close\r\n\r\nThe request is not HTTP/1.1: invalid HTTP method\n")
        let event = try #require(kernel.trace.all.first { $0.event == "http-bad-request" })
        #expect(event["reason"] == "The request is not HTTP/1.1: invalid HTTP method" && event["status"] == "400")
        let hello = try kernel.run("GET /") { try await HTTPClient.send(HTTPRequest(), host: "mig", port: 631, on: phone) }
        #expect(hello.status == .ok)
        #expect(hello.text.contains("MIG hello"))
    }

    @Test func attributesThatNeverEndAreCutOffAtTheLimit() throws {
        let (kernel, phone, _) = try Self.world()
        var request = IPPMessage.request(.printJob, requestID: 5) { op in
            op.addPrinterURI("ipp://mig/ipp/print")
            for index in 0..<40 { op.add("x-filler-\(index)", .text(String(repeating: "a", count: 32_000))) }
        }
        request.addGroup(.job)
        let encoded = try IPPEncoder().encode(request)
        // Everything but the end-of-attributes tag: 1.28 MB of attributes that never end.
        let response = try Self.post(kernel, phone, Array(encoded.dropLast()), chunked: true)
        #expect(response.status == .ok)
        #expect(response.headers.first(name: "Connection") == "close", "answered before the body ended")
        let answer = try Self.ipp(response)
        #expect(answer.status == .requestEntityTooLarge)
        #expect(answer.requestID == 5)
        #expect(answer.statusMessage?.contains("exceeds the limit of 1048576 bytes before its end-of-attributes tag") == true)
    }

    @Test func oversizedDocumentsAbortTheJobWithAClearStatus() throws {
        let (kernel, phone, server) = try Self.world { $0.printer.maxDocumentBytes = 1000 }
        let answer = try Self.ipp(try Self.post(kernel, phone, try Self.printJob(document: Array(repeating: 7, count: 5000)), chunked: true))
        #expect(answer.status == .requestEntityTooLarge)
        #expect(answer.statusMessage?.contains("exceeds the limit of 1000 bytes") == true)
        #expect(try server.jobs().first?.state == .aborted)
    }

    @Test func aSlowUploadIsCutOffAndItsJobAborted() throws {
        let (kernel, phone, server) = try Self.world { $0.bodyIdleTimeout = .seconds(5) }
        let channel = try kernel.run("connect") { try await phone.connect(host: "mig", port: 631).get() }
        let head =
            "POST /ipp/print HTTP/1.1\r\nHost: mig\r\nContent-Type: application/ipp\r\nAuthorization: \(Self.demo)\r\nContent-Length: 100000\r\n\r\n"
        _ = try kernel.run("send part") {
            try await channel.writeAndFlush(ByteBuffer(bytes: Array(head.utf8) + (try Self.printJob(document: [1, 2, 3])))).get()
        }
        kernel.advance(by: .seconds(10))
        #expect(try server.jobs().first?.state == .aborted)
        #expect(kernel.trace.all.contains { $0.event == "upload-timeout" })
    }

    @Test func attributesTrickledAByteAtATimeStillPrint() throws {
        let (kernel, phone, server) = try Self.world()
        let channel = try kernel.run("connect") { try await phone.connect(host: "mig", port: 631).get() }
        let body = try Self.printJob(document: Array("trickled, byte by byte".utf8)) { job in
            for index in 0..<20 { job.add("x-note-\(index)", .text("note \(index)")) }
        }
        let head =
            "POST /ipp/print HTTP/1.1\r\nHost: mig\r\nContent-Type: application/ipp\r\nAuthorization: \(Self.demo)\r\nContent-Length: \(body.count)\r\n\r\n"
        _ = try kernel.run("send head") { try await channel.writeAndFlush(ByteBuffer(string: head)).get() }
        for byte in body {
            _ = try kernel.run("send a byte") { try await channel.writeAndFlush(ByteBuffer(bytes: [byte])).get() }
        }
        kernel.advance(by: .seconds(1))
        let job = try #require(try server.jobs().first)
        #expect(job.documentBytes == 22)
        #expect(kernel.trace.all.contains { $0.event == "http-response" && $0.fields.contains { $0 == ("status", "200") } })
    }

    @Test func attributesThatTrickleForeverMeetTheirDeadline() throws {
        let (kernel, phone, _) = try Self.world {
            $0.bodyIdleTimeout = .seconds(5)
            $0.attributesTimeout = .seconds(20)
        }
        let channel = try kernel.run("connect") { try await phone.connect(host: "mig", port: 631).get() }
        let head =
            "POST /ipp/print HTTP/1.1\r\nHost: mig\r\nContent-Type: application/ipp\r\nAuthorization: \(Self.demo)\r\nContent-Length: 1000000\r\n\r\n"
        _ = try kernel.run("send head") {
            try await channel.writeAndFlush(ByteBuffer(string: head + "\u{2}\u{0}\u{0}\u{2}\u{0}\u{0}\u{0}\u{1}\u{1}")).get()
        }
        // A small attribute every 2 s: never idle for 5 s, never done.
        for index in 0..<15 {
            let attribute: [UInt8] = [0x41, 0, 1, 0x61, 0, 1, UInt8(0x30 + index % 10)]
            // After the 408 the server closes the connection; later writes fail, as they would for the client.
            _ = try? kernel.run("send an attribute") { try await channel.writeAndFlush(ByteBuffer(bytes: attribute)).get() }
            kernel.advance(by: .seconds(2))
        }
        let responses = kernel.trace.all.filter { $0.event == "http-response" }
        #expect(responses.count == 1)
        #expect(responses.first?.fields.contains { $0 == ("status", "408") } == true)
        // Twenty seconds after the head arrived, not when the client stopped.
        let request = try #require(kernel.trace.all.first { $0.event == "http-request" })
        let answered = try #require(responses.first)
        #expect(answered.nanoseconds - request.nanoseconds == 20_000_000_000)
    }

    @Test func headerInjectionInJobNameStaysData() throws {
        let (kernel, phone, server) = try Self.world()
        let name = "evil\r\nX-Injected: 1"
        let answer = try Self.ipp(try Self.post(kernel, phone, try Self.printJob(document: TestDocuments.pdf(pages: 1)) { _ in }))
        #expect(answer.status == .successfulOK)
        var request = IPPMessage.request(.printJob, requestID: 2) { op in
            op.addPrinterURI("ipp://mig/ipp/print")
            op.addJobName(name)
        }
        request.addGroup(.job)
        let response = try Self.post(kernel, phone, try IPPEncoder().encode(request))
        #expect(response.headers.first(name: "X-Injected") == nil)
        #expect(try server.jobs().last?.name == name)
    }

    @Test func unsupportedAttributesAreReturnedInTheirGroup() throws {
        let (kernel, phone, _) = try Self.world()
        let lenient = try Self.ipp(
            try Self.post(kernel, phone, try Self.printJob(document: TestDocuments.pdf(pages: 1)) { $0.addSides("three-sided") }))
        #expect(lenient.status == .successfulOKIgnoredOrSubstitutedAttributes)
        #expect(lenient.group(.unsupported)?["sides"]?.stringValue == "three-sided")
        var strict = IPPMessage.request(.printJob, requestID: 3) { op in
            op.addPrinterURI("ipp://mig/ipp/print")
            op.addIPPAttributeFidelity(true)
        }
        strict.addGroup(.job) { $0.addMedia("iso_a9_37x52mm") }
        let refused = try Self.ipp(try Self.post(kernel, phone, try IPPEncoder().encode(strict)))
        #expect(refused.status == .attributesOrValuesNotSupported)
        #expect(refused.group(.unsupported)?["media"] != nil)
    }

    @Test func paperRunsOutMidJobAndPrintingResumesWhenRefilled() throws {
        let (kernel, phone, server) = try Self.world()
        _ = try Self.post(kernel, phone, try Self.printJob(document: try Self.document(500_000)))
        kernel.advance(by: .milliseconds(2500))
        server.node.faults.set("mig.media-empty", .on)
        kernel.advance(by: .seconds(5))
        #expect(try server.jobs().first?.state == .processingStopped)
        server.node.faults.set("mig.media-empty", .off)
        kernel.advance(by: .seconds(10))
        #expect(try server.jobs().first?.state == .completed)
        let events = kernel.trace.all.map(\.event)
        #expect(events.contains("printer-stopped") && events.contains("printer-resumed"))
    }

    @Test func busyPrinterAnswersServerErrorBusy() throws {
        let (kernel, phone, server) = try Self.world()
        server.node.faults.set("mig.busy", .times(1))
        let busy = try Self.ipp(try Self.post(kernel, phone, try Self.printJob(document: TestDocuments.pdf(pages: 1))))
        #expect(busy.status == .busy, "\(busy)")
        #expect(try Self.ipp(try Self.post(kernel, phone, try Self.printJob(document: TestDocuments.pdf(pages: 1)))).status == .successfulOK)
    }

    @Test func gzipDocumentsAreInflatedIntoTheSpool() throws {
        let (kernel, phone, server) = try Self.world()
        // A one-page DSC PostScript document of 49 bytes, gzip-compressed (Python's gzip.compress, mtime 0).
        let gzip: [UInt8] = [
            0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00, 0x02, 0x03, 0x53, 0x55, 0x0c, 0x08, 0xd6, 0x75, 0x4c, 0xc9, 0x4f, 0x4a,
            0xd5, 0x35, 0xd6, 0x33, 0xe0, 0x52, 0x55, 0x0d, 0x48, 0x4c, 0x4f, 0x2d, 0xb6, 0x52, 0x30, 0x04, 0x32, 0x5d, 0xf3, 0x52,
            0x9c, 0xf3, 0x73, 0x73, 0x53, 0xf3, 0x4a, 0x8a, 0xb9, 0x8a, 0x33, 0xf2, 0xcb, 0x0b, 0x80, 0x52, 0x5c, 0x00, 0x7b, 0xd3,
            0x66, 0x49, 0x31, 0x00, 0x00, 0x00,
        ]
        var request = IPPMessage.request(.printJob, requestID: 4) { op in
            op.addPrinterURI("ipp://mig/ipp/print")
            op.addCompression("gzip")
        }
        request.addGroup(.job)
        #expect(try Self.ipp(try Self.post(kernel, phone, try IPPEncoder().encode(request) + gzip)).status == .successfulOK)
        #expect(try server.jobs().first?.documentBytes == 49)
        #expect(try server.jobs().first?.pages == 1)
        let corrupt = try Self.ipp(try Self.post(kernel, phone, try IPPEncoder().encode(request) + [0x1f, 0x8b, 0x08, 0x00, 0xFF, 0xFF]))
        #expect(corrupt.status == .compressionError)
    }

    @Test func sameSeedSameTrace() throws {
        func run(_ seed: UInt64) throws -> String {
            let (kernel, phone, _) = try Self.world(seed: seed)
            // Seeded latency, so the trace depends on the seed: equal digests then mean the seed alone decided the run.
            kernel.network.setConditions(from: "phone", to: "mig", LinkConditions(latency: .uniform(1_000_000, 20_000_000), bandwidth: 1_000_000))
            _ = try Self.post(kernel, phone, try Self.printJob(document: try Self.document(150_000)), chunked: true)
            kernel.advance(by: .seconds(5))
            return kernel.trace.digest
        }
        #expect(try run(5) == run(5))
        #expect(try run(5) != run(6), "the trace must record what the seed decided")
    }
}
