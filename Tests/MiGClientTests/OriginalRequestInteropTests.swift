import Foundation
import IPP
import TestSupport
import Testing
import Wire

@testable import MiGClient

/// Original 000's own Print-Job bytes: the client's `.original` attribute set writes exactly them, and a real IPP server
/// (ippeveprinter) answers them HTTP 200 with client-error-bad-request — not a job.
@Suite(.serialized) struct OriginalRequestInteropTests {
    static let originalRequest = Array(
        (try? Data(contentsOf: URL(fileURLWithPath: Repository.fixture("ipp/original-000-print-job-request.ipp")))) ?? Data())

    @Test func theOriginalAttributeSetWritesTheOriginalAppsBytes() throws {
        #expect(Self.originalRequest.count == 174)
        let message = MiGClient.originalPrintJob(jobName: "Quarterly report.pdf", options: PrintOptions(attributeSet: .original))
        #expect(try message.encoded() == Self.originalRequest)
        // The original app's settings are the options' defaults; other copies or sides go in the same two attributes.
        let two = MiGClient.originalPrintJob(
            jobName: "a.pdf", options: PrintOptions(copies: 2, sides: "two-sided-long-edge", attributeSet: .original))
        #expect(two.group(.job)?["copies"]?.integerValue == 2)
        #expect(two.group(.job)?["sides"]?.stringValue == "two-sided-long-edge")
        #expect(two.printerURI == nil)
    }

    @Test func theOriginalAttributeSetCannotSayADocumentIsGzipped() async throws {
        let wire = LiveWire(threads: 1)
        let client = try MiGClient(configuration: try .init(url: "ipp://demo:x@mig:631/ipp/print"), node: wire.node("app"))
        await #expect(
            throws: MiGError.invalidConfiguration(
                "the original app's attribute set has no compression attribute: the printer could not know the document is gzipped")
        ) {
            _ = try await client.print(.bytes([0x25]), options: PrintOptions(compression: .gzip, attributeSet: .original))
        }
        try await wire.shutdown()
    }

    @Test func ippeveprinterAnswersTheOriginalAppsPrintJobWithBadRequest() async throws {
        let printer = try IPPEvePrinter()
        defer { printer.stop() }
        let wire = LiveWire(threads: 1)
        let client = try IPPEveInteropTests.client("ipp://localhost:\(printer.port)/ipp/print", wire: wire)

        let answer = try await client.replay(encodedRequest: Self.originalRequest, document: .bytes(IPPEveInteropTests.pdf))
        #expect(answer.httpStatus == 200)
        #expect(answer.message?.status == .badRequest)
        #expect(answer.message?.statusMessage == "Missing required attributes.")

        await #expect(throws: MiGError.ipp(status: .badRequest, message: "Missing required attributes.")) {
            _ = try await client.print(.bytes(IPPEveInteropTests.pdf, name: "Quarterly report.pdf"), options: PrintOptions(attributeSet: .original))
        }
        // Neither created a job; the complete attribute set does.
        let job = try await client.print(.bytes(IPPEveInteropTests.pdf, name: "Quarterly report.pdf", format: "application/pdf"))
        #expect(job.id == 1)
        try await wire.shutdown()
    }
}
