import Foundation
import IPP
import Kernel
import MiGClient
import MiGServer
import NIOCore
import TestSupport
import Testing
import Wire

/// Original 000's own Print-Job (Fixtures/ipp/original-000-print-job-request.ipp) against MiG: HTTP 200 — what the
/// original app takes for "job was accepted" — with IPP client-error-bad-request, like ippeveprinter's captured
/// answer, and no job. And MiG plain on 8050 behind the proxy, as the original deployment has it.
@Suite struct OriginalRequestTests {
    static let originalRequest = Repository.fixture("ipp/original-000-print-job-request.ipp")
    static let ippeveprinterAnswer = Repository.fixture("ipp/original-000-print-job-response.ipp")

    static func bytes(_ path: String) throws -> [UInt8] { Array(try Data(contentsOf: URL(fileURLWithPath: path))) }

    static func client(_ kernel: Kernel, _ url: String) throws -> MiGClient {
        try MiGClient(configuration: try .init(url: url, trust: .caFile(Repository.fixture("tls/ca.pem")), retry: .none), node: kernel.node("phone"))
    }

    @Test func theOriginalAppsPrintJobIsAnsweredHTTP200WithBadRequestAndCreatesNoJob() throws {
        let (kernel, _, server) = try MiGServerTests.world()
        let client = try Self.client(kernel, "ipp://demo:demo-password@mig:631/ipp/print")
        let request = try Self.bytes(Self.originalRequest)
        let answer = try kernel.run("replay") {
            try await client.replay(encodedRequest: request, document: .bytes(TestDocuments.pdf(pages: 1)))
        }
        #expect(answer.httpStatus == 200)
        let message = try #require(answer.message)
        #expect(message.status == .badRequest)
        #expect(message.statusMessage == "Missing required printer-uri operation attribute.")
        #expect(try server.jobs().isEmpty)
        // A real IPP server nobody here wrote gives the same answer (captured from ippeveprinter).
        let reference = try IPPDecoder().decode(try Self.bytes(Self.ippeveprinterAnswer))
        #expect(message.status == reference.status)
        #expect(message.version == reference.version && message.version == .v1_1)
        #expect(message.requestID == reference.requestID && message.requestID == 1)
    }

    @Test func theClientWithTheOriginalAttributeSetReportsTheRefusalNotSuccess() throws {
        let (kernel, _, server) = try MiGServerTests.world()
        let client = try Self.client(kernel, "ipp://demo:demo-password@mig:631/ipp/print")
        let result = try kernel.run("print") { () async -> Result<SubmittedJob, MiGError> in
            do throws(MiGError) {
                return .success(
                    try await client.print(
                        .bytes(TestDocuments.pdf(pages: 1), name: "Quarterly report.pdf"),
                        options: PrintOptions(attributeSet: .original)))
            } catch { return .failure(error) }
        }
        guard case .failure(.ipp(let status, let text)) = result else {
            Issue.record("expected an IPP refusal, got \(result)")
            return
        }
        #expect(status == .badRequest)
        #expect(text?.contains("printer-uri") == true)
        #expect(try server.jobs().isEmpty)
        // The complete attribute set prints.
        let job = try kernel.run("print") { try await client.print(.bytes(TestDocuments.pdf(pages: 1), name: "Quarterly report.pdf")) }
        #expect(job.id == 1)
    }

    @Test func ippsToAPlainPortFailsAtOnceSayingSo() throws {
        let (kernel, _, _) = try MiGServerTests.world { $0.plainPort = 8050 }
        let client = try Self.client(kernel, "ipps://demo:demo-password@mig:8050/ipp/print")
        let start = kernel.now
        let result = try kernel.run("print") { () async -> Result<SubmittedJob, MiGError> in
            do throws(MiGError) { return .success(try await client.print(.bytes(TestDocuments.pdf(pages: 1)))) } catch { return .failure(error) }
        }
        guard case .failure(.tls(let text)) = result else {
            Issue.record("expected a TLS failure, got \(result)")
            return
        }
        #expect(text.contains("this port speaks plain HTTP"))
        #expect(!text.contains(".cc:"), "BoringSSL's source locations stay out of the error: \(text)")
        // MiG answered the ClientHello with 400 and closed, instead of waiting for a blank line that never comes.
        #expect(kernel.now - start < .seconds(5))
    }
}
