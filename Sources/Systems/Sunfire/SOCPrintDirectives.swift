import Foundation
import NIOCore
import PrintDocuments
import SOCPrint
import Scenario
import Synchronization
import SystemKit
import Wire

extension Directive {
    /// `socprint`: the NUS SOC Print app on a phone — its settings, a document handed to it, and its four screens.
    static let socprint = Directive(
        "socprint",
        usage: """
            socprint settings user U password P [server HOST[:PORT]] [printer P] | \
            socprint open FILE [name N] | socprint open generated pdf|doc|docx|ppt|pptx|odt pages N [name N] | \
            socprint print [printer P] [per-sheet 1|2|4|6|8] [range S-E] [network wifi|wwan] [answer-wwan yes|no] \
            [transfer scp|sftp] [cancel-after BYTES [confirm yes|no]] [within DURATION] | \
            socprint status | socprint delete | socprint quota — each with [from NODE] [as NAME]
            """,
        summary: """
            the SOC Print app (original 001): print publishes ${NAME.status} printed|failed|cancelled|refused, .step (the failed row), \
            .title and .message (its alert), .asked (the questions' titles), .uploaded (files uploaded in full), .dialog (the Printing Progress dialog); \
            status → ${NAME.text}; delete → ${NAME.text}; quota → ${NAME.text}, ${NAME.ps}; settings → ${NAME.title}. \
            FILE is found from the scenario's folder, else in Fixtures/ (e.g. documents/slides-12.pptx); the server defaults to sunfire, quota asks mysoc:443
            """,
        defaults: """
            from phone, as socprint, within 2m (print: 30m); settings: server sunfire, no printer; open: the file's own name \
            (generated: document-N.KIND); print: printer psts, per-sheet 1, every page, network wifi, answer-wwan yes, transfer scp, \
            never cancelled (cancel-after: confirm yes)
            """,
        keywords: [
            "settings", "user", "password", "server", "printer", "open", "generated", "pages", "name", "print", "per-sheet", "range",
            "network", "wifi", "wwan", "answer-wwan", "yes", "no", "transfer", "scp", "sftp", "cancel-after", "confirm", "within",
            "status", "delete", "quota", "from", "as",
        ]
    ) { args throws(ScenarioError) in
        let action = try args.oneOf(["settings", "open", "print", "status", "delete", "quota"])
        let command: SOCPrintCommand
        switch action {
        case "settings": command = try .parseSettings(&args)
        case "open": command = try .parseOpen(&args)
        case "print": command = try .parsePrint(&args)
        case "status": command = .status
        case "delete": command = .delete
        default: command = .quota
        }
        var node = "phone"
        var label = "socprint"
        var within = Template(literal: command.defaultLimit)
        while !args.isEmpty {
            switch try args.oneOf(["from", "as", "within"]) {
            case "from": node = try args.name("a node name")
            case "within": within = try args.duration()
            default: label = try args.name("a variable name")
            }
        }
        args.declare(node: node)
        let (phone, name, limitText) = (node, label, within)
        args.binds(label, fields: command.fields + ResultBinding.performed)
        return Run { context in
            let app = try SOCPrintCommand.app(on: phone, context)
            let limit = try limitText.duration(context)
            return try command.perform(app, context: context, label: name, limit: limit)
        }
    }
}

/// What one `socprint` line does, parsed.
enum SOCPrintCommand: Sendable {
    case settings(user: Template, password: Template, server: Template, printer: Template)
    case open(DocumentSpec, name: Template?)
    case print(PrintChoices)
    case status, delete, quota

    enum DocumentSpec: Sendable {
        case file(Template)
        case generated(String, pages: Int)
    }

    struct PrintChoices: Sendable {
        var printer = Template(literal: "psts")
        var perSheet = PagesPerSheet.one
        var range: (from: String, to: String)?
        var network = NetworkKind.wifi
        var answerMobileData = true
        var transport = UploadTransport.scp
        var cancelAfter: Int64?
        var confirmCancel = true
    }

    /// The fields its result gives, besides ``ResultBinding/performed``.
    var fields: [String] {
        switch self {
        case .settings: ["status", "title", "message"]
        case .open: ["status", "url", "name", "bytes"]
        case .print: ["status", "step", "asked", "title", "message", "uploaded", "dialog"]
        case .status, .delete: ["status", "text"]
        case .quota: ["status", "text", "ps"]
        }
    }

    var defaultLimit: String {
        if case .print = self { return "30m" }
        return "2m"
    }

    static func parseSettings(_ args: inout Arguments) throws(ScenarioError) -> SOCPrintCommand {
        try args.expect("user")
        let user = try args.value("the Unix username")
        try args.expect("password")
        let password = try args.value("the Unix password")
        var server = Template(literal: "sunfire")
        var printer = Template(literal: "")
        while let next = args.peek, !next.quoted, ["server", "printer"].contains(next.text) {
            if try args.oneOf(["server", "printer"]) == "server" {
                server = try args.value("HOST or HOST:PORT")
            } else {
                printer = try args.value("a printer name, e.g. psc115")
            }
        }
        return .settings(user: user, password: password, server: server, printer: printer)
    }

    static func parseOpen(_ args: inout Arguments) throws(ScenarioError) -> SOCPrintCommand {
        let spec: DocumentSpec
        if args.accept("generated") {
            let kind = try args.oneOf(["pdf"] + OfficeFormat.allCases.map(\.rawValue))
            try args.expect("pages")
            let pages = try args.integer("a page count", in: 1...DocumentLimits.maximumPages)
            spec = .generated(kind, pages: pages)
        } else {
            spec = .file(try args.path("a document file, e.g. documents/slides-12.pptx (from the scenario's folder, else Fixtures/)"))
        }
        let name = args.accept("name") ? try args.value("the file name the phone shows, e.g. \"Term project.pptx\"") : nil
        return .open(spec, name: name)
    }

    static func parsePrint(_ args: inout Arguments) throws(ScenarioError) -> SOCPrintCommand {
        var choices = PrintChoices()
        let words = ["printer", "per-sheet", "range", "network", "answer-wwan", "transfer", "cancel-after"]
        while let next = args.peek, !next.quoted, words.contains(next.text) {
            switch try args.oneOf(words) {
            case "printer": choices.printer = try args.value("a printer name")
            case "per-sheet":
                let count = try args.integer("pages per sheet: 1, 2, 4, 6 or 8", in: 1...8)
                guard let perSheet = PagesPerSheet(rawValue: count) else { throw args.error("pages per sheet must be 1, 2, 4, 6 or 8, not \(count)") }
                choices.perSheet = perSheet
            case "range":
                let text = try args.name("a page range S-E, e.g. 2-6")
                let parts = text.split(separator: "-", omittingEmptySubsequences: false)
                guard parts.count == 2 else { throw args.error("expected a page range S-E like 2-6, found '\(text)'") }
                // The fields go to the print screen as typed: it is the app's check that refuses "0-3" or "5-2".
                choices.range = (String(parts[0]), String(parts[1]))
            case "network": choices.network = try args.oneOf(["wifi", "wwan"]) == "wifi" ? .wifi : .wwan
            case "answer-wwan": choices.answerMobileData = try args.oneOf(["yes", "no"]) == "yes"
            case "transfer": choices.transport = try args.oneOf(["scp", "sftp"]) == "scp" ? .scp : .sftp
            default:
                let bytes = try args.integer("bytes of an upload after which Cancel is pressed", in: 0...(1 << 40))
                choices.cancelAfter = Int64(bytes)
                if args.accept("confirm") { choices.confirmCancel = try args.oneOf(["yes", "no"]) == "yes" }
            }
        }
        return .print(choices)
    }

    /// The app on a node, made on first use with the workbench's converter stand-ins and mysoc trusted through the
    /// test CA.
    static func app(on nodeName: String, _ context: ScenarioContext) throws -> SOCPrintApp {
        try context.state(.socprintApp, for: nodeName) {
            let node = context.world.node(nodeName)
            let ca = try Data(contentsOf: URL(fileURLWithPath: try Fixtures.path("tls/ca.pem")))
            let app = SOCPrintApp(
                node: node, converters: try StandInConverters.manifest(),
                quota: try QuotaClient(host: "mysoc", node: node, trust: .caPEM(Array(ca))))
            app.registerForDocuments()
            return app
        }
    }

    func perform(_ app: SOCPrintApp, context: ScenarioContext, label: String, limit: Duration) throws -> Pending {
        switch self {
        case .settings(let user, let password, let server, let printer):
            let account = context.signIn("sunfire", demo: .sunfire, user: try user.resolve(context), password: try password.resolve(context))
            let alert = app.settings.save(
                username: account.user, password: account.password,
                printer: try printer.resolve(context), server: try server.resolve(context))
            return context.perform("socprint settings", label: label, timeout: limit) {
                [
                    "status": alert == .saved ? "saved" : "refused", "title": alert.title, "message": alert.message,
                    "error": alert == .saved ? "" : "\(alert.title): \(alert.message)",
                ]
            }
        case .open(let spec, let name):
            let (fileName, bytes) = try Self.document(spec, name: try name?.resolve(context), context: context)
            guard !fileName.isEmpty, !fileName.contains("/"), fileName.utf8.count <= 255 else {
                throw StepError("socprint open: name '\(fileName)' must be a file name (no '/', 1…255 bytes)")
            }
            let url = app.deliverToInbox(name: fileName, bytes: bytes)
            return context.perform("socprint open \(fileName)", label: label, timeout: limit) {
                let received = app.nextDocument()
                // Another app ("Files") hands the document over, as Open In does. The bus is the world's, not one
                // phone's: registering again makes this node's app the one that receives it (same owner name).
                app.registerForDocuments()
                guard app.node.bus.open(url, from: "files") else {
                    app.stopWaitingForDocuments()
                    return [
                        "status": "unhandled", "url": url, "error": "no app on the phone takes \(url): SOC Print is not registered for documents",
                    ]
                }
                let document: OpenedDocument
                do { document = try await received.get() } catch {
                    return ["status": "refused", "error": "\(error)", "url": url]
                }
                return ["status": "opened", "name": document.name, "bytes": String(document.source.size), "url": url]
            }
        case .print(let choices):
            let screen = PrintScreen(printer: try choices.printer.resolve(context), pagesPerSheet: choices.perSheet, customRange: choices.range)
            let confirm = choices.confirmCancel
            let answerMobileData = choices.answerMobileData
            let asked = Mutex<[String]>([])
            let started = app.print(screen, network: choices.network, transport: choices.transport) { question in
                asked.withLock { $0.append(question.title) }
                return question == .mobileData ? answerMobileData : confirm
            }
            return context.perform("socprint print", label: label, timeout: limit) {
                switch started {
                case .failure(let alert):
                    return [
                        "status": "refused", "step": "", "asked": "", "title": alert.title, "message": alert.message, "uploaded": "", "dialog": "",
                        "error": "\(alert.title): \(alert.message)",
                    ]
                case .success(let operation):
                    let outcome = await Self.run(operation, cancelAfter: choices.cancelAfter)
                    let failed = outcome.failedStep.map { outcome.rows[$0.rawValue].title } ?? ""
                    // What the user saw, in one line: the row that failed and the alert over it.
                    let why =
                        outcome.status == .printed
                        ? ""
                        : ([failed] + [outcome.alert?.title, outcome.alert?.message].compactMap { $0 }).filter { !$0.isEmpty }.joined(separator: ": ")
                    return [
                        "status": outcome.status.rawValue, "step": failed, "asked": asked.withLock { $0.joined(separator: ",") },
                        "title": outcome.alert?.title ?? "",
                        "message": outcome.alert?.message ?? "", "uploaded": outcome.uploaded.joined(separator: ","), "dialog": outcome.dialog,
                        "error": outcome.status == .cancelled && why.isEmpty ? "the user cancelled the print" : why,
                    ]
                }
            }
        case .status:
            return context.perform("socprint status", label: label, timeout: limit) {
                let report = await app.status()
                return [
                    "status": report.alert == nil ? "ok" : "failed", "text": report.alert?.message ?? report.text,
                    "error": report.alert?.message ?? "",
                ]
            }
        case .delete:
            return context.perform("socprint delete", label: label, timeout: limit) {
                let report = await app.deletePendingJobs()
                return [
                    "status": report.alert == nil ? "ok" : "failed", "text": report.alert?.message ?? report.text,
                    "error": report.alert?.message ?? "",
                ]
            }
        case .quota:
            return context.perform("socprint quota", label: label, timeout: limit) {
                let report = await app.refreshQuota()
                let ps = report.rows.first { $0.type.hasPrefix("PS-printer") }?.value ?? ""
                return [
                    "status": report.rows.isEmpty ? "failed" : "ok", "text": report.text, "ps": ps,
                    "error": report.rows.isEmpty ? (report.text.isEmpty ? "the quota page showed no quotas" : report.text) : "",
                ]
            }
        }
    }

    /// Runs the print; with `cancelAfter`, presses Cancel once an upload has sent that many bytes.
    private static func run(_ operation: PrintOperation, cancelAfter: Int64?) async -> PrintOperation.Outcome {
        guard let cancelAfter else { return await operation.run() }
        // The watcher reads the dialog's rows as a UI would; the stream ends when the print does.
        async let watched: Void = {
            for await rows in operation.progress
            where rows.contains(where: { row in
                if case .running = row.state, let sent = row.sent { return sent >= cancelAfter }
                return false
            }) {
                await operation.cancel()
                return
            }
        }()
        let outcome = await operation.run()
        await watched
        return outcome
    }

    /// A document from Fixtures/ or generated; the name the phone shows is the file's own unless given.
    private static func document(_ spec: DocumentSpec, name: String?, context: ScenarioContext) throws -> (String, [UInt8]) {
        switch spec {
        case .file(let template):
            let relative = try template.resolve(context)
            let path = try ScenarioPaths.existing(relative, in: context)
            guard let data = FileManager.default.contents(atPath: path) else { throw StepError("socprint open: cannot read \(path)") }
            guard data.count <= DocumentLimits.maximumDocumentBytes else {
                throw StepError("socprint open: \(relative) is \(data.count) bytes; at most \(DocumentLimits.maximumDocumentBytes)")
            }
            return (name ?? URL(fileURLWithPath: relative).lastPathComponent, Array(data))
        case .generated(let kind, let pages):
            let title = name.map(PrintPaths.baseName) ?? "Workbench document"
            let bytes: [UInt8] =
                if let format = OfficeFormat(rawValue: kind) {
                    OfficeDocument.generate(format, pages: pages, title: title)
                } else {
                    PDFWriter.document(title: title, pages: (1...pages).map { PDFPage(lines: ["\(title)", "Page \($0) of \(pages)"]) })
                }
            return (name ?? "document-\(pages).\(kind)", bytes)
        }
    }
}

/// The converter stand-ins as the app's manifest, made once per process (the document converter is 46.6 MB).
enum StandInConverters {
    private static let cached = Mutex<ConverterManifest?>(nil)

    static func manifest() throws -> ConverterManifest {
        try cached.withLock { cached in
            if let cached { return cached }
            func converter(_ jar: StandInJar) throws -> ConverterManifest.Converter {
                try ConverterManifest.Converter(fileName: jar.fileName, payload: .bytes(jar.bytes()))
            }
            let made = ConverterManifest(
                documentConverter: try converter(.docsToPDF), nUp: try converter(.nupPDF),
                multivalent: try converter(.multivalent))
            cached = made
            return made
        }
    }
}

extension RunState where Value == SOCPrintApp {
    /// The SOC Print app on each node, by the node's name.
    static let socprintApp = RunState("socprint.app")
}
