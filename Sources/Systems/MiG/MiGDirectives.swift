import DerivedCredential
import Foundation
import MiGClient
import NIOConcurrencyHelpers
import NIOCore
import PrintDocuments
import Scenario
import SystemKit
import Wire

/// The `mig` directive: the phone's MiG print client (the shipped `MiGClient`) driven from scenarios.
extension Directive {
    /// Connection words every `mig` line accepts.
    fileprivate struct MiGConnection: Sendable {
        var url = Template(literal: "ipp://demo:demo-password@mig:631/ipp/print")
        /// Whether the line gave `url`: one that did not prints to the run's target, when `--target mig=URL` names one.
        var urlGiven = false
        var user: Template?
        var password: Template?
        var p12: (file: Template, password: Template)?
        /// `credential SERIAL TAG`: a derived credential the app sent to the Ivanti client, presented in TLS.
        var credential: (serial: Template, tag: CredentialTag)?
        var ca = Template(literal: "tls/ca.pem")
        var from = "phone"
        var retries = 4

        /// Parses one connection word and its value; false when the word is not one.
        mutating func accept(_ word: String, _ args: inout Arguments) throws(ScenarioError) -> Bool {
            switch word {
            case "url":
                url = try args.value("a printer URL like ipps://mig:8050/ipp/print")
                urlGiven = true
            case "user": user = try args.value("a MiG account name")
            case "password": password = try args.value("the account's password")
            case "p12":
                p12 = (
                    try args.path("a PKCS#12 file, e.g. tls/client.p12 (from the scenario's folder, else Fixtures/)"), try args.value("its password")
                )
            case "credential":
                let serial = try args.value("the serial number of a derived credential the app sent to the Ivanti client")
                let word = try args.name("a tag")
                guard let tag = CredentialTag(word: word) else {
                    throw args.error(
                        "tag '\(word)': expected one of \(CredentialTag.allCases.map { $0.rawValue.lowercased() }.joined(separator: ", "))")
                }
                credential = (serial, tag)
            case "ca": ca = try args.path("a CA certificate file (from the scenario's folder, else Fixtures/)")
            case "from": from = try args.name("a node name")
            case "retries": retries = try args.integer("how many times to retry", in: 0...100)
            default: return false
            }
            return true
        }

        static let words = ["url", "user", "password", "p12", "credential", "ca", "from", "retries"]

        /// Resolves the words on the scenario's thread and returns what makes the client inside the step's task:
        /// an identity held through AppConnect is first read back from the Ivanti client over the bus.
        func client(_ context: ScenarioContext) throws -> @Sendable () async throws -> MiGClient {
            let node = context.world.node(from)
            var identity: MiGClient.ClientIdentity?
            if let p12 {
                identity = .pkcs12(
                    file: try ScenarioPaths.existing(try p12.file.resolve(context), in: context), password: try p12.password.resolve(context))
            }
            var held: (source: HeldIdentities.Source, serial: String, tag: CredentialTag)?
            if let credential {
                guard let source = HeldIdentities.source(of: from, in: context) else {
                    throw StepError("app '\(from)' has not started AppConnect; use 'appconnect start app \(from) scheme S' first")
                }
                held = (source, try credential.serial.resolve(context), credential.tag)
            }
            let address = try (urlGiven ? nil : context.target(of: "mig")) ?? url.resolve(context)
            // `password P` alone changes the password of the URL's user.
            let account = try user?.resolve(context) ?? (password == nil ? nil : (try? MiGEndpoint(url: address))?.credentials?.user)
            let secret = try password?.resolve(context)
            let trust = MiGClient.ServerTrust.caFile(try ScenarioPaths.existing(try ca.resolve(context), in: context))
            let retry = MiGClient.RetryPolicy(maxAttempts: retries + 1, baseDelay: .milliseconds(500), maxDelay: .seconds(8))
            let fixed = identity
            let heldIdentity = held
            return {
                var identity = fixed
                if let heldIdentity {
                    let (certificate, key) = try await heldIdentity.source(heldIdentity.serial, heldIdentity.tag.rawValue)
                    identity = .der(
                        certificateChain: [certificate], privateKey: key,
                        source: "derived credential \(heldIdentity.serial) (\(heldIdentity.tag.rawValue))")
                }
                var configuration = try MiGClient.Configuration(
                    url: address, user: account, password: secret, trust: trust,
                    clientIdentity: identity, retry: retry)
                configuration.answers = .planted(on: node)
                return try MiGClient(configuration: configuration, node: node)
            }
        }
    }

    static let mig = Directive(
        "mig",
        usage:
            "mig print [bytes N | file PATH] [name JOB] [copies N] [sides S] [number-up N] [media M] [pages A-B] [format MIME] [content-length] [gzip] [hold] "
            + "[attributes complete|original] | mig replay FIXTURE [bytes N | file PATH] | "
            + "mig wait JOB [within D] [sheets] | mig job JOB [sheets] | mig cancel JOB | mig hold JOB | mig release JOB | mig alive — each with [url URL] [user U] [password P] "
            + "[p12 FILE PASSWORD | credential SERIAL TAG] [ca FILE] [from NODE] [retries N] [as NAME] "
            + "(credential: the app's derived credential, its certificate read back through AppConnect, with the key the app kept)",
        summary: "the phone's MiG print client: ${NAME.status} ok/error, .job, .state, .reasons, .attempts, .bytes, .progress, .code, .error; "
            + "wait and job: .message and .impressions (job-impressions-completed, as Get-Job-Attributes reports it then; .pages "
            + "is the same), with sheets also .sheets (job-media-sheets-completed, asked for only then: a longer request); "
            + "replay sends a fixture's IPP bytes as-is: .http, .ipp, .message, .job, .original (what the original app's HTTP-status check concludes); "
            + "print … hold sends job-hold-until=indefinite: the job waits (pending-held) until mig release",
        defaults: "url ipp://demo:demo-password@mig:631/ipp/print (user and password its own), ca tls/ca.pem, from phone, retries 4, "
            + "within 300s, as mig; print: bytes 100000 (a generated PDF), copies 1, number-up 1, attributes complete, chunked (no "
            + "content-length), not gzipped, not held, sides one-sided, format application/pdf; media, pages and name: none sent",
        keywords: [
            "print", "replay", "wait", "job", "cancel", "hold", "release", "alive", "bytes", "file", "name", "copies", "sides", "number-up", "media",
            "pages", "format",
            "content-length", "gzip", "attributes", "complete", "original", "within", "sheets", "as",
        ] + MiGConnection.words
    ) { args throws(ScenarioError) in
        let line = try MiGLine(&args)
        args.declare(node: line.connection.from)
        args.binds(line.label, fields: ["status", "job", "state", "code", "attempts"] + line.request.fields + ResultBinding.performed)
        return Run { context in try line.run(context) }
    }

    /// What a replayed request got, and what the original app's check makes of it: the original reads only the
    /// HTTP status ("200 OK - job was accepted by MiG", 401, 404).
    fileprivate static func values(_ answer: MiGClient.ReplayAnswer) -> [String: String] {
        let original =
            switch answer.httpStatus {
            case 200: "accepted"
            case 401: "unauthorized"
            case 404: "not-found"
            default: "unexpected"
            }
        let message = answer.message
        return [
            "status": "ok", "http": "\(answer.httpStatus)", "ipp": message.map { "\($0.status)" } ?? "",
            "message": message?.statusMessage ?? answer.problem ?? "", "job": message?.jobID.map(String.init) ?? "",
            "original": original, "code": "",
        ]
    }

    /// What Get-Job-Attributes said; `.sheets` only when it was asked for.
    fileprivate static func values(_ status: JobStatus, sheets: Bool) -> [String: String] {
        var values: [String: String] = [
            "status": "ok", "job": "\(status.id)", "state": status.state.map { "\($0)" } ?? "",
            "reasons": status.stateReasons.joined(separator: ","), "message": status.stateMessage ?? "",
            "pages": status.impressionsCompleted.map(String.init) ?? "",
            "impressions": status.impressionsCompleted.map(String.init) ?? "",
            "code": "",
        ]
        if sheets { values["sheets"] = status.mediaSheetsCompleted.map(String.init) ?? "" }
        return values
    }

    /// A failed call: `.code` names the case of the typed error (what an app switches on), `.error` says it.
    fileprivate static func failure(_ error: any Error, _ extra: [String: String] = [:]) -> [String: String] {
        var values = extra
        values["status"] = "error"
        // The same names as a success, so a workload under faults can check both outcomes in one expectation.
        values["job"] = values["job"] ?? ""
        values["state"] = values["state"] ?? ""
        values["error"] = "\(error)"
        values["code"] = (error as? MiGError).map(code) ?? (error is HeldIdentityUnavailable ? "credential-unavailable" : "unexpected")
        if case .retriesExhausted(let attempts, _)? = error as? MiGError { values["attempts"] = "\(attempts)" }
        return values
    }

    private static func code(_ error: MiGError) -> String {
        switch error {
        case .invalidConfiguration: "invalid-configuration"
        case .clientCertificate: "client-certificate"
        case .documentUnreadable: "document-unreadable"
        case .unknownHost: "unknown-host"
        case .connectionRefused: "connection-refused"
        case .timedOut: "timed-out"
        case .connectionDropped: "connection-dropped"
        case .answerLost: "answer-lost"
        case .tlsUntrustedServer: "tls-untrusted-server"
        case .tlsClientCertificateRejected: "tls-client-certificate-rejected"
        case .tls: "tls"
        case .unauthorized: "unauthorized"
        case .notFound: "not-found"
        case .httpStatus(let code, _, _): "http-\(code)"
        case .malformedResponse: "malformed-response"
        case .ipp(let status, _): "\(status)"
        case .jobNotFinished: "job-not-finished"
        case .retriesExhausted(_, let last): "retries-exhausted:" + code(last)
        }
    }
}

/// `bytes N` (a generated PDF of N bytes; 0 for no document) or `file PATH`: the document a `mig print` or
/// `mig replay` sends.
private struct DocumentSource: Sendable {
    var bytes = Template(literal: "100000")
    var file: Template?

    func resolve(_ context: ScenarioContext, format: String?) throws -> Document {
        if let file { return .file(try ScenarioPaths.existing(try file.resolve(context), in: context), format: format) }
        let size = try bytes.resolve(context)
        if let problem = Self.problem(size: size) { throw StepError(problem) }
        if size == "0" { return .bytes([], name: "document.pdf", format: format) }
        return try .generated(byteCount: Int64(size)!, name: "document.pdf", format: format ?? "application/pdf")
    }

    /// What is wrong with `bytes SIZE`, or nil: checked when the line is read (a literal) or runs (a variable).
    static func problem(size: String) -> String? {
        guard let count = Int64(size), (0...(Int64(1) << 40)).contains(count) else {
            return "bytes \(size): expected a size in bytes from 0 to 1099511627776 (1 TiB)"
        }
        let smallest = PaddedPDF.minimumBytes()
        guard count == 0 || count >= smallest else {
            return "bytes \(size): a generated PDF takes at least \(smallest) bytes (bytes 0 sends no document)"
        }
        return nil
    }
}

/// A `mig` line, its words parsed once when the line is read: which request, with its typed options, and how to
/// reach MiG. Only what names a variable (`${p.job}`, a job name, a format) is resolved when the line runs.
private struct MiGLine: Sendable {
    enum Request: Sendable {
        case print(PrintRequest)
        case replay(fixture: Template)
        case wait(job: Template, sheets: Bool)
        case job(job: Template, sheets: Bool)
        case cancel(job: Template)
        case hold(job: Template)
        case release(job: Template)
        case alive

        var name: String {
            switch self {
            case .print: "print"
            case .replay: "replay"
            case .wait: "wait"
            case .job: "job"
            case .cancel: "cancel"
            case .hold: "hold"
            case .release: "release"
            case .alive: "alive"
            }
        }

        /// The job it is about, for those about one.
        var job: Template? {
            switch self {
            case .wait(let job, _), .job(let job, _), .cancel(let job), .hold(let job), .release(let job): job
            case .print, .replay, .alive: nil
            }
        }

        /// The result fields the request gives besides those every `mig` line gives.
        var fields: [String] {
            switch self {
            case .print: ["reasons", "bytes", "progress"]
            case .replay: ["http", "ipp", "message", "original"]
            case .wait(_, let sheets), .job(_, let sheets): ["reasons", "message", "pages", "impressions"] + (sheets ? ["sheets"] : [])
            case .alive: ["result"]
            case .cancel, .hold, .release: []
            }
        }
    }

    /// `mig print`'s options: the job template as the client sends it, but for what a variable may name.
    struct PrintRequest: Sendable {
        var options = PrintOptions()
        var jobName: Template?
        var format: Template?
    }

    var request: Request
    var connection = Directive.MiGConnection()
    var document = DocumentSource()
    var label = "mig"
    var within = Template(literal: "300s")

    init(_ args: inout Arguments) throws(ScenarioError) {
        let action = try args.oneOf(["print", "replay", "wait", "job", "cancel", "hold", "release", "alive"])
        var job: Template?
        if ["wait", "job", "cancel", "hold", "release"].contains(action) { job = try args.value("a job id, e.g. ${p.job}") }
        var fixture: Template?
        if action == "replay" {
            fixture = try args.path("an IPP request file, e.g. ipp/original-000-print-job-request.ipp (from the scenario's folder, else Fixtures/)")
        }
        var print = PrintRequest()
        var sheets = false
        while !args.isEmpty {
            let word = try args.oneOf(
                Directive.MiGConnection.words + [
                    "as", "bytes", "file", "name", "copies", "sides", "number-up", "media", "pages", "format",
                    "content-length", "gzip", "hold", "attributes", "within", "sheets",
                ])
            if try connection.accept(word, &args) { continue }
            switch word {
            case "as": label = try args.name("a variable name")
            case "bytes":
                if let token = args.peek, !token.text.contains("${"), let problem = DocumentSource.problem(size: token.text) {
                    throw args.error(problem)
                }
                document.bytes = try args.value("a document size in bytes")
            case "file": document.file = try args.path("a file to print")
            case "name": print.jobName = try args.value("a job name")
            case "copies": print.options.copies = Int32(try args.integer("a number of copies", in: 0...Int(Int32.max)))
            case "number-up": print.options.numberUp = Int32(try args.integer("pages per side, e.g. 2", in: 1...Int(Int32.max)))
            case "sides": print.options.sides = try args.oneOf(["one-sided", "two-sided-long-edge", "two-sided-short-edge", "three-sided"])
            case "media": print.options.media = try args.name("a media keyword like iso_a4_210x297mm")
            case "pages":
                let column = args.peek?.column ?? args.directiveColumn
                let pages = try args.name("a page range like 1-3")
                let bounds = pages.split(separator: "-", omittingEmptySubsequences: false).compactMap { Int32($0) }
                guard bounds.count == 2, bounds[0] >= 1, bounds[0] <= bounds[1] else {
                    throw ScenarioError(
                        file: args.file, line: args.line, column: column, message: "pages \(pages): expected FIRST-LAST, 1 ≤ FIRST ≤ LAST (e.g. 1-3)")
                }
                print.options.pageRanges = [bounds[0]...bounds[1]]
            case "format": print.format = try args.value("a MIME type like application/pdf")
            case "content-length": print.options.framing = .contentLength
            case "gzip": print.options.compression = .gzip
            case "hold": print.options.holdUntil = "indefinite"
            case "attributes": print.options.attributeSet = try args.oneOf(["complete", "original"]) == "original" ? .original : .complete
            case "sheets":
                guard ["wait", "job"].contains(action) else { throw args.error("'sheets' goes with mig wait or mig job, not mig \(action)") }
                sheets = true
            default: within = try args.duration()
            }
        }
        switch action {
        case "print": request = .print(print)
        case "replay": request = .replay(fixture: fixture ?? Template(literal: ""))
        case "wait": request = .wait(job: job ?? Template(literal: ""), sheets: sheets)
        case "job": request = .job(job: job ?? Template(literal: ""), sheets: sheets)
        case "cancel": request = .cancel(job: job ?? Template(literal: ""))
        case "hold": request = .hold(job: job ?? Template(literal: ""))
        case "release": request = .release(job: job ?? Template(literal: ""))
        default: request = .alive
        }
    }

    func run(_ context: ScenarioContext) throws -> Pending? {
        let action = request.name
        let variable = label
        let timeout = try within.duration(context)
        // A client that cannot be made (a P12 with the wrong password, a credential the Ivanti client does not
        // hold) is an outcome the app handles: each step makes it in its task and reports the failure.
        let makeClient = try connection.client(context)
        var id: Int32 = 0
        if let job = request.job {
            let given = try job.resolve(context)
            if given == "" {
                // `${p.job}` of a print that failed is empty: following it is an outcome (a workload under faults
                // follows whatever the print made), not a broken scenario.
                return context.perform("mig \(action)", label: variable, timeout: timeout) {
                    [
                        "status": "error", "job": "", "state": "", "code": "no-job",
                        "error": "no job to \(action): the print that would have made it failed",
                    ]
                }
            }
            guard let value = Int32(given) else { throw StepError("'\(given)' is not a job id") }
            id = value
        }
        let job = id
        switch request {
        case .print(let print):
            var options = print.options
            options.jobName = try print.jobName?.resolve(context)
            options.documentFormat = try print.format?.resolve(context) ?? "application/pdf"
            let source = try document.resolve(context, format: options.documentFormat)
            let progress = NIOLockedValueBox(0)
            let final = options
            return context.perform("mig print", label: variable, timeout: timeout) {
                do {
                    let client = try await makeClient()
                    let submitted = try await client.print(source, options: final) { _, _ in progress.withLockedValue { $0 += 1 } }
                    return [
                        "status": "ok", "job": "\(submitted.id)", "state": submitted.state.map { "\($0)" } ?? "",
                        "reasons": submitted.stateReasons.joined(separator: ","), "attempts": "\(submitted.attempts)",
                        "bytes": "\(submitted.bytesSent)", "progress": "\(progress.withLockedValue { $0 })", "code": "",
                    ]
                } catch {
                    return Directive.failure(error, ["progress": "\(progress.withLockedValue { $0 })"])
                }
            }
        case .replay(let fixture):
            let path = try ScenarioPaths.existing(try fixture.resolve(context), in: context)
            let bytes: [UInt8]
            do {
                bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            } catch {
                throw StepError("replay: cannot read \(path): \(error.localizedDescription)")
            }
            let source = try document.resolve(context, format: nil)
            return context.perform("mig replay", label: variable, timeout: timeout) {
                do {
                    let client = try await makeClient()
                    return Directive.values(try await client.replay(encodedRequest: bytes, document: source))
                } catch { return Directive.failure(error) }
            }
        case .wait(_, let sheets):
            return context.perform("mig wait", label: variable, timeout: timeout + .seconds(5)) {
                do {
                    let client = try await makeClient()
                    let status = try await client.waitForCompletion(
                        job, pollInterval: .seconds(1), timeout: .nanoseconds(timeout.nanosecondsValue), countingSheets: sheets)
                    return Directive.values(status, sheets: sheets)
                } catch { return Directive.failure(error) }
            }
        case .job(_, let sheets):
            return context.perform("mig job", label: variable, timeout: timeout) {
                do { return Directive.values(try await makeClient().jobAttributes(job, countingSheets: sheets), sheets: sheets) } catch {
                    return Directive.failure(error)
                }
            }
        case .cancel, .hold, .release:
            let request = self.request
            return context.perform("mig \(action)", label: variable, timeout: timeout) {
                do {
                    let client = try await makeClient()
                    switch request {
                    case .hold: try await client.hold(job)
                    case .release: try await client.release(job)
                    default: try await client.cancel(job)
                    }
                    return ["status": "ok", "code": ""]
                } catch { return Directive.failure(error) }
            }
        case .alive:
            return context.perform("mig alive", label: variable, timeout: timeout) {
                let client: MiGClient
                do { client = try await makeClient() } catch { return Directive.failure(error) }
                switch await client.isAlive() {
                case .alive: return ["status": "ok", "result": "alive"]
                case .notMiG(let why): return ["status": "ok", "result": "not-mig", "error": why]
                case .unreachable(let error): return ["status": "ok", "result": "unreachable", "error": "\(error)"]
                }
            }
        }
    }
}
