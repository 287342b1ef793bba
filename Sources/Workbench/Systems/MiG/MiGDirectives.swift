import DerivedCredential
import Foundation
import MiGClient
import NIOConcurrencyHelpers
import NIOCore
import PrintDocuments
import Scenario
import Wire

/// The `mig` directive: the phone's MiG print client (the shipped `MiGClient`) driven from scenarios.
extension Directive {
    /// Connection words every `mig` line accepts.
    private struct MiGConnection: Sendable {
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
        let action = try args.oneOf(["print", "replay", "wait", "job", "cancel", "hold", "release", "alive"])
        var connection = MiGConnection()
        var label = "mig"
        var jobID: Template?
        if ["wait", "job", "cancel", "hold", "release"].contains(action) { jobID = try args.value("a job id, e.g. ${p.job}") }
        var fixture: Template?
        if action == "replay" {
            fixture = try args.path("an IPP request file, e.g. ipp/original-000-print-job-request.ipp (from the scenario's folder, else Fixtures/)")
        }
        var document = DocumentSource()
        var name: Template?
        var copies = 1
        var numberUp = 1
        var sides: String?
        var media: String?
        var pages: String?
        var format: Template?
        var contentLength = false
        var gzip = false
        var hold = false
        var attributeSet = AttributeSet.complete
        var within = Template(literal: "300s")
        var countingSheets = false
        while !args.isEmpty {
            let word = try args.oneOf(
                MiGConnection.words + [
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
            case "name": name = try args.value("a job name")
            case "copies": copies = try args.integer("a number of copies", in: 0...Int(Int32.max))
            case "number-up": numberUp = try args.integer("pages per side, e.g. 2", in: 1...Int(Int32.max))
            case "sides": sides = try args.oneOf(["one-sided", "two-sided-long-edge", "two-sided-short-edge", "three-sided"])
            case "media": media = try args.name("a media keyword like iso_a4_210x297mm")
            case "pages": pages = try args.name("a page range like 1-3")
            case "format": format = try args.value("a MIME type like application/pdf")
            case "content-length": contentLength = true
            case "gzip": gzip = true
            case "hold": hold = true
            case "attributes": attributeSet = try args.oneOf(["complete", "original"]) == "original" ? .original : .complete
            case "sheets":
                guard ["wait", "job"].contains(action) else { throw args.error("'sheets' goes with mig wait or mig job, not mig \(action)") }
                countingSheets = true
            default: within = try args.duration()
            }
        }
        args.declare(node: connection.from)
        // Every field the line may give: a failure gives status, job, state, code, attempts and error whatever the action.
        let own: [String] =
            switch action {
            case "print": ["reasons", "bytes", "progress"]
            case "replay": ["http", "ipp", "message", "original"]
            case "wait", "job": ["reasons", "message", "pages", "impressions"] + (countingSheets ? ["sheets"] : [])
            case "alive": ["result"]
            default: []
            }
        args.binds(label, fields: ["status", "job", "state", "code", "attempts"] + own + ResultBinding.performed)
        let finalConnection = connection
        let finalDocument = document
        let variable = label
        let job = jobID
        let limit = within
        let options = (name, copies, sides, media, pages, format, contentLength, gzip, attributeSet, hold, numberUp)
        let replayed = fixture
        let sheets = countingSheets
        return Run { context in
            let timeout = try limit.duration(context)
            // A client that cannot be made (a P12 with the wrong password, a credential the Ivanti client does not
            // hold) is an outcome the app handles: each step makes it in its task and reports the failure.
            let makeClient = try finalConnection.client(context)
            let given = try job?.resolve(context)
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
            let id = try given.map { resolved -> Int32 in
                guard let value = Int32(resolved) else { throw StepError("'\(resolved)' is not a job id") }
                return value
            }
            switch action {
            case "print":
                var printOptions = PrintOptions(
                    jobName: try options.0?.resolve(context), copies: Int32(options.1), sides: options.2 ?? "one-sided",
                    media: options.3, documentFormat: try options.5?.resolve(context) ?? "application/pdf",
                    framing: options.6 ? .contentLength : .chunked, compression: options.7 ? .gzip : .none,
                    attributeSet: options.8, holdUntil: options.9 ? "indefinite" : nil,
                    numberUp: Int32(options.10))
                if let pages = options.4 {
                    let bounds = pages.split(separator: "-").compactMap { Int32($0) }
                    guard bounds.count == 2, bounds[0] <= bounds[1] else { throw StepError("pages \(pages): expected FIRST-LAST") }
                    printOptions.pageRanges = [bounds[0]...bounds[1]]
                }
                let source = try finalDocument.resolve(context, format: printOptions.documentFormat)
                let progress = NIOLockedValueBox(0)
                let final = printOptions
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
                        return Self.failure(error, ["progress": "\(progress.withLockedValue { $0 })"])
                    }
                }
            case "replay":
                guard let replayed else { throw StepError("mig replay needs a fixture file") }
                let path = try ScenarioPaths.existing(try replayed.resolve(context), in: context)
                let bytes: [UInt8]
                do {
                    bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
                } catch {
                    throw StepError("replay: cannot read \(path): \(error.localizedDescription)")
                }
                let source = try finalDocument.resolve(context, format: nil)
                return context.perform("mig replay", label: variable, timeout: timeout) {
                    do {
                        let client = try await makeClient()
                        return Self.values(try await client.replay(encodedRequest: bytes, document: source))
                    } catch { return Self.failure(error) }
                }
            case "wait":
                return context.perform("mig wait", label: variable, timeout: timeout + .seconds(5)) {
                    do {
                        let client = try await makeClient()
                        let status = try await client.waitForCompletion(
                            id!, pollInterval: .seconds(1), timeout: .nanoseconds(timeout.nanosecondsValue), countingSheets: sheets)
                        return Self.values(status, sheets: sheets)
                    } catch { return Self.failure(error) }
                }
            case "job":
                return context.perform("mig job", label: variable, timeout: timeout) {
                    do { return Self.values(try await makeClient().jobAttributes(id!, countingSheets: sheets), sheets: sheets) } catch {
                        return Self.failure(error)
                    }
                }
            case "cancel", "hold", "release":
                return context.perform("mig \(action)", label: variable, timeout: timeout) {
                    do {
                        let client = try await makeClient()
                        switch action {
                        case "hold": try await client.hold(id!)
                        case "release": try await client.release(id!)
                        default: try await client.cancel(id!)
                        }
                        return ["status": "ok", "code": ""]
                    } catch { return Self.failure(error) }
                }
            default:
                return context.perform("mig alive", label: variable, timeout: timeout) {
                    let client: MiGClient
                    do { client = try await makeClient() } catch { return Self.failure(error) }
                    switch await client.isAlive() {
                    case .alive: return ["status": "ok", "result": "alive"]
                    case .notMiG(let why): return ["status": "ok", "result": "not-mig", "error": why]
                    case .unreachable(let error): return ["status": "ok", "result": "unreachable", "error": "\(error)"]
                    }
                }
            }
        }
    }

    /// What a replayed request got, and what the original app's check makes of it: the original reads only the
    /// HTTP status ("200 OK - job was accepted by MiG", 401, 404).
    private static func values(_ answer: MiGClient.ReplayAnswer) -> [String: String] {
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
    private static func values(_ status: JobStatus, sheets: Bool) -> [String: String] {
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
    private static func failure(_ error: any Error, _ extra: [String: String] = [:]) -> [String: String] {
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
