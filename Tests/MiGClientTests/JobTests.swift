import IPP
import Kernel
import MiGClient
import NIOCore
import Synchronization
import Testing
import Wire
import WireHTTP

/// Following, cancelling and validating jobs; printer attributes; "MIG hello".
@Suite struct JobTests {
    /// A printer that runs out of paper on job 7 for two polls, is refilled, then completes it; job 8 is cancelable.
    static func startPrinter(_ world: SimulatedWorld) throws -> Recorder {
        let polls = Counter()
        let canceled = Mutex(false)
        return try world.startIPPServer { request in
            guard let ipp = request.ipp else { return .text(.badRequest, "not IPP") }
            switch ipp.operation {
            case .getJobAttributes where ipp.jobID == 7:
                switch polls.next() {
                case 1: return IPPAnswer.job(request, id: 7, state: .processing, reasons: ["job-printing"])
                case 2, 3: return IPPAnswer.job(request, id: 7, state: .processingStopped, reasons: ["media-empty", "printer-stopped"])
                default: return IPPAnswer.job(request, id: 7, state: .completed, reasons: ["job-completed-successfully"])
                }
            case .getJobAttributes where ipp.jobID == 8:
                return IPPAnswer.job(request, id: 8, state: canceled.withLock { $0 } ? .canceled : .processing, reasons: [])
            case .cancelJob where ipp.jobID == 8:
                let already = canceled.withLock { was in
                    defer { was = true }
                    return was
                }
                return already
                    ? IPPAnswer.status(request, .notPossible, message: "job 8 is already canceled")
                    : IPPAnswer.status(request, .successfulOK)
            case .getPrinterAttributes:
                var response = IPPMessage.response(to: ipp, status: .successfulOK)
                response.addGroup(.printer) { printer in
                    printer.add("printer-name", .name("MiG"))
                    printer.add(IPPAttributeName.printerState, .enumValue(3))
                    printer.add(IPPAttributeName.printerStateReasons, .keyword("none"))
                    printer.add("printer-is-accepting-jobs", .boolean(true))
                    printer.add("document-format-supported", .mimeMediaType("application/pdf"), .mimeMediaType("image/jpeg"))
                }
                return IPPAnswer.http(response)
            case .validateJob:
                var response = IPPMessage.response(
                    to: ipp,
                    status: ipp.media == "na_letter_8.5x11in"
                        ? .successfulOKIgnoredOrSubstitutedAttributes : .successfulOK)
                if ipp.media == "na_letter_8.5x11in" {
                    response.addGroup(.unsupported) { $0.add(IPPAttributeName.media, .keyword("na_letter_8.5x11in")) }
                }
                return IPPAnswer.http(response)
            default:
                return IPPAnswer.status(request, .notFound, message: "no such job")
            }
        }
    }

    @Test func waitForCompletionFollowsTheJobThroughMediaEmpty() throws {
        let world = SimulatedWorld()
        let recorder = try Self.startPrinter(world)
        let client = try world.client()
        let seen = Mutex<[String]>([])
        let start = world.kernel.now
        let final = try world.run {
            try await client.waitForCompletion(7, pollInterval: .seconds(2), timeout: .seconds(60)) { status in
                seen.withLock { $0.append("\(status.state!) \(status.stateReasons.joined(separator: ","))") }
            }
        }
        #expect(final.state == .completed)
        #expect(final.stateReasons == ["job-completed-successfully"])
        #expect(
            seen.withLock { $0 } == [
                "processing job-printing", "processing-stopped media-empty,printer-stopped",
                "completed job-completed-successfully",
            ])
        // Four polls, two seconds apart, on the virtual clock.
        #expect(world.kernel.now - start == .seconds(6))
        let polls = recorder.requests.compactMap(\.ipp)
        #expect(polls.count == 4)
        #expect(polls.allSatisfy { $0.operation == .getJobAttributes && $0.printerURI == "ipp://mig:8050/ipp/print" })
    }

    @Test func waitForCompletionGivesUpWithTheLastState() throws {
        let world = SimulatedWorld()
        _ = try Self.startPrinter(world)
        let client = try world.client()
        let error = try world.run { await expectMiGError { try await client.waitForCompletion(8, pollInterval: .seconds(1), timeout: .seconds(5)) } }
        #expect(error == .jobNotFinished(jobID: 8, state: .processing, reasons: ["none"]))
    }

    @Test func cancelThenCancelAgainIsNotPossible() throws {
        let world = SimulatedWorld()
        let recorder = try Self.startPrinter(world)
        let client = try world.client()
        try world.run { try await client.cancel(8) }
        #expect(recorder.requests.last?.ipp?.operation == .cancelJob)
        #expect(recorder.requests.last?.ipp?.jobID == 8)
        let status = try world.run { try await client.jobAttributes(8) }
        #expect(status.state == .canceled)
        let error = try world.run { await expectMiGError { try await client.cancel(8) } }
        #expect(error == .ipp(status: .notPossible, message: "job 8 is already canceled"))
    }

    @Test func printerAttributesAndValidation() throws {
        let world = SimulatedWorld()
        _ = try Self.startPrinter(world)
        let client = try world.client()
        let printer = try world.run { try await client.printerAttributes(requested: ["printer-name", "printer-state"]) }
        #expect(printer.name == "MiG")
        #expect(printer.state == 3)
        #expect(printer.isAcceptingJobs == true)
        #expect(printer.documentFormats == ["application/pdf", "image/jpeg"])
        let ok = try world.run { try await client.validate(options: PrintOptions(media: "iso_a4_210x297mm"), documentFormat: "application/pdf") }
        #expect(ok == ValidationResult(status: .successfulOK, unsupportedAttributes: []))
        let substituted = try world.run { try await client.validate(options: PrintOptions(media: "na_letter_8.5x11in")) }
        #expect(substituted == ValidationResult(status: .successfulOKIgnoredOrSubstitutedAttributes, unsupportedAttributes: ["media"]))
    }

    @Test func isAliveTellsMiGFromOtherServersAndFromNothing() throws {
        let world = SimulatedWorld()
        try world.startIPPServer(port: 8050) { _ in .text(.ok, "MIG hello") }
        try world.startIPPServer(port: 80) { _ in .text(.ok, "<html>It works!</html>") }
        let mig = try world.client(url: "https://mig:8050/ipp/print", trust: .acceptAnyCertificate)
        // The plain-HTTP servers above are what a test over https would hit: use http URLs for them.
        #expect(!mig.securityWarnings.isEmpty)
        #expect(world.kernel.trace.all.contains { $0.event == "mig-client-insecure-tls" })
        let plainMiG = try world.client(url: "http://mig:8050/")
        let other = try world.client(url: "http://mig:80/")
        let nothing = try world.client(url: "http://mig:9999/")
        #expect(try world.run { await plainMiG.isAlive() } == .alive)
        let answer = try world.run("other") { await other.isAlive() }
        guard case .notMiG(let text) = answer else {
            Issue.record("expected notMiG, got \(answer)")
            return
        }
        #expect(text.contains("200"))
        #expect(try world.run { await nothing.isAlive() } == .unreachable(.connectionRefused("mig:9999")))
    }
}
