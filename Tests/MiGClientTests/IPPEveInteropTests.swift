import Foundation
import IPP
import MiGClient
import NIOCore
import Testing
import Wire

/// The client against a server nobody here wrote: CUPS' `ippeveprinter`, on the live wire, plain and over TLS.
/// Results are checked by what ippeveprinter reports over IPP (job state and reasons).
@Suite(.serialized) struct IPPEveInteropTests {
    /// A minimal valid PDF (one empty page).
    static let pdf = Array(
        """
        %PDF-1.4
        1 0 obj <</Type /Catalog /Pages 2 0 R>> endobj
        2 0 obj <</Type /Pages /Kids [3 0 R] /Count 1>> endobj
        3 0 obj <</Type /Page /Parent 2 0 R /MediaBox [0 0 595 842]>> endobj
        trailer <</Root 1 0 R>>
        %%EOF

        """.utf8)

    static func client(
        _ url: String, wire: LiveWire, trust: MiGClient.ServerTrust = .systemDefault,
        retry: MiGClient.RetryPolicy = .none
    ) throws -> MiGClient {
        let configuration = try MiGClient.Configuration(
            url: url, trust: trust, retry: retry,
            timeouts: MiGClient.Timeouts(idle: .seconds(20)))
        return try MiGClient(configuration: configuration, node: wire.node("app"))
    }

    @Test func printsAPDFOverPlainIPPAndFollowsItToCompletion() async throws {
        let printer = try IPPEvePrinter()
        defer { printer.stop() }
        let wire = LiveWire(threads: 1)
        let client = try Self.client("ipp://localhost:\(printer.port)/ipp/print", wire: wire)

        guard case .notMiG = await client.isAlive() else {
            Issue.record("ippeveprinter's status page is not MiG")
            return
        }
        let description = try await client.printerAttributes()
        #expect(description.name == "Workbench Test")
        #expect(description.documentFormats.contains("application/pdf"))
        #expect(description.isAcceptingJobs == true)

        let options = PrintOptions(jobName: "interop.pdf", copies: 1, sides: "one-sided", media: "iso_a4_210x297mm")
        #expect(try await client.validate(options: options, documentFormat: "application/pdf").status.isSuccessful)
        let job = try await client.print(.bytes(Self.pdf, name: "interop.pdf", format: "application/pdf"), options: options)
        #expect(job.id > 0)
        #expect(job.attempts == 1)
        #expect(job.bytesSent == Int64(Self.pdf.count))
        let final = try await client.waitForCompletion(job.id, pollInterval: .milliseconds(100), timeout: .seconds(30))
        #expect(final.state == .completed)
        #expect(final.stateReasons.contains("job-completed-successfully"))
        #expect(final.name == "interop.pdf")
        // ippeveprinter refuses what it does not support, and the client names it.
        await #expect(
            throws: MiGError.ipp(
                status: .attributesOrValuesNotSupported,
                message: "Unsupported document-format mimeMediaType value.")
        ) {
            _ = try await client.print(.bytes([0x47, 0x49, 0x46], format: "image/gif"))
        }
        try await wire.shutdown()
    }

    @Test func aGzipCompressedJobPrints() async throws {
        let printer = try IPPEvePrinter()
        defer { printer.stop() }
        let wire = LiveWire(threads: 1)
        let client = try Self.client("ipp://localhost:\(printer.port)/ipp/print", wire: wire)
        let supported = try await client.printerAttributes(requested: ["compression-supported"])
        #expect(supported.attributes["compression-supported"]?.stringValues.contains("gzip") == true)
        let job = try await client.print(.bytes(Self.pdf, format: "application/pdf"), options: PrintOptions(compression: .gzip))
        let final = try await client.waitForCompletion(job.id, pollInterval: .milliseconds(100), timeout: .seconds(30))
        #expect(final.state == .completed)
        // ippeveprinter un-gzipped the upload into its spool: the very PDF that was printed.
        // (It also spools the print command's empty output as .prn.)
        let spooled = try printer.spooledDocuments().filter { $0.key.hasSuffix(".pdf") }
        #expect(Array(spooled.values) == [Self.pdf], "spooled: \(spooled.keys.sorted())")
        try await wire.shutdown()
    }

    @Test func contentLengthFramingAndAFileFromDisk() async throws {
        let printer = try IPPEvePrinter()
        defer { printer.stop() }
        let path = printer.directory + "/document.pdf"
        #expect(FileManager.default.createFile(atPath: path, contents: Data(Self.pdf)))
        let wire = LiveWire(threads: 1)
        let client = try Self.client("ipp://localhost:\(printer.port)/ipp/print", wire: wire)
        let job = try await client.print(.file(path), options: PrintOptions(framing: .contentLength, expectContinue: false))
        let final = try await client.waitForCompletion(job.id, pollInterval: .milliseconds(100), timeout: .seconds(30))
        #expect(final.state == .completed)
        #expect(final.name == "document.pdf")
        try await wire.shutdown()
    }

    @Test func aBusyPrinterIsRetriedAndARunningJobCanBeCanceled() async throws {
        let printer = try IPPEvePrinter(holdJobs: true)
        defer { printer.stop() }
        // Release the held job as soon as the client reports its first retry: the busy answer is then certain.
        let directory = printer.directory
        let trace = RecordingTraceSink { event in if event == "mig-client-retry" { IPPEvePrinter.release(directory: directory) } }
        let wire = LiveWire(threads: 1, tracer: trace)
        let url = "ipp://localhost:\(printer.port)/ipp/print"
        let client = try Self.client(url, wire: wire)
        let first = try await client.print(.bytes(Self.pdf, format: "application/pdf"))

        // ippeveprinter runs one job at a time: a second job gets server-error-busy.
        await #expect(throws: MiGError.ipp(status: .busy, message: "Currently printing another job.")) {
            _ = try await client.print(.bytes(Self.pdf, format: "application/pdf"))
        }
        // Cancel the running job: ippeveprinter lets the job's process reach a stop point (it is held).
        let running = try await client.jobAttributes(first.id)
        #expect(running.state == .processing)
        try await client.cancel(first.id)
        #expect(try await client.jobAttributes(first.id).stateReasons.contains("processing-to-stop-point"))

        // The retrying client waits out the busy printer: its first retry releases the job.
        let patient = try Self.client(
            url, wire: wire,
            retry: MiGClient.RetryPolicy(
                maxAttempts: 40, baseDelay: .milliseconds(100),
                maxDelay: .milliseconds(500)))
        let second = try await patient.print(.bytes(Self.pdf, format: "application/pdf"))
        #expect(second.attempts > 1)
        #expect(trace.events.contains("mig-client-retry"))
        let canceled = try await client.waitForCompletion(first.id, pollInterval: .milliseconds(100), timeout: .seconds(30))
        #expect(canceled.state == .canceled)
        let done = try await client.waitForCompletion(second.id, pollInterval: .milliseconds(100), timeout: .seconds(30))
        #expect(done.state == .completed)
        // A finished job cannot be canceled.
        do {
            try await client.cancel(second.id)
            Issue.record("canceling a completed job succeeded")
        } catch {
            guard case .ipp(.notPossible, _) = error else {
                Issue.record("got \(error)")
                return
            }
        }
        try await wire.shutdown()
    }

    @Test func printsOverIPPSTrustingTheTestCA() async throws {
        let printer = try IPPEvePrinter(certificate: .testCA)
        defer { printer.stop() }
        let wire = LiveWire(threads: 1)
        let client = try Self.client(
            "ipps://localhost:\(printer.port)/ipp/print", wire: wire,
            trust: .caFile(RepositoryPaths.tls("ca.pem")))
        // ippeveprinter accepts any bytes labelled PDF (its print command here does not look at them).
        let job = try await client.print(try .generated(byteCount: 300_000, format: "application/pdf"))
        let final = try await client.waitForCompletion(job.id, pollInterval: .milliseconds(100), timeout: .seconds(30))
        #expect(final.state == .completed)
        #expect(job.bytesSent == 300_000)
        // By IP address: no SNI, and the certificate's IP SAN (127.0.0.1) is what gets checked.
        let byAddress = try Self.client(
            "ipps://127.0.0.1:\(printer.port)/ipp/print", wire: wire,
            trust: .caFile(RepositoryPaths.tls("ca.pem")))
        let second = try await byAddress.print(.bytes(Self.pdf, format: "application/pdf"))
        #expect(try await byAddress.waitForCompletion(second.id, pollInterval: .milliseconds(100), timeout: .seconds(30)).state == .completed)
        try await wire.shutdown()
    }

    @Test func aSelfSignedPrinterIsUntrustedUnlessAcceptAnyIsChosen() async throws {
        let printer = try IPPEvePrinter(certificate: .selfSigned)
        defer { printer.stop() }
        let wire = LiveWire(threads: 1)
        let url = "ipps://localhost:\(printer.port)/ipp/print"
        let strict = try Self.client(url, wire: wire, trust: .caFile(RepositoryPaths.tls("ca.pem")))
        do {
            _ = try await strict.print(.bytes(Self.pdf, format: "application/pdf"))
            Issue.record("a self-signed certificate was trusted")
        } catch {
            guard case .tlsUntrustedServer = error else {
                Issue.record("got \(error)")
                return
            }
        }
        let lenient = try Self.client(url, wire: wire, trust: .acceptAnyCertificate)
        #expect(!lenient.securityWarnings.isEmpty)
        let job = try await lenient.print(.bytes(Self.pdf, format: "application/pdf"))
        let final = try await lenient.waitForCompletion(job.id, pollInterval: .milliseconds(100), timeout: .seconds(30))
        #expect(final.state == .completed)
        try await wire.shutdown()
    }
}
