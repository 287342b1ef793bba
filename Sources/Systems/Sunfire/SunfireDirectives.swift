import NIOCore
import PrintDocuments
import SOCPrint
import Scenario
import Sunfire
import SunfireHost
import SystemKit
import Wire

extension Directive {
    /// `ssh`: one command over a real SSH connection from a node (the SOC Print client's connectivity), like
    /// `ssh HOST COMMAND` — a new connection per line.
    static let ssh = Directive(
        "ssh",
        usage:
            "ssh COMMAND | ssh put (generated pdf|doc|docx|ppt|pptx|odt pages N | stand-in JAR | bytes N) PATH [via scp|sftp] [cancel-after BYTES] — "
            + "each with [to HOST[:PORT]] [user U] [password P] [from NODE] [within DURATION] [as NAME]",
        summary:
            "run one command on an SSH host (default sunfire:22 as demo), or upload a file: ${NAME.stdout}, .stderr, .exit, .status ok|refused|unreachable|error|failed",
        defaults: "to sunfire:22, user demo, password demo-password, from phone, within 120s, as ssh; put: via scp, never cancelled",
        keywords: [
            "put", "generated", "stand-in", "bytes", "pages", "via", "scp", "sftp", "cancel-after", "to", "user", "password", "from", "within", "as",
        ]
    ) { args throws(ScenarioError) in
        var upload: (source: UploadSpec, path: Template, transport: UploadTransport, cancelAfter: Int?)?
        var command = Template(literal: "")
        if args.accept("put") {
            let source = try UploadSpec.parse(&args)
            let path = try args.value("where to put it, relative to the home, e.g. socPrint/source.pptx")
            var transport = UploadTransport.scp
            var cancelAfter: Int?
            if args.accept("via") { transport = try args.oneOf(["scp", "sftp"]) == "scp" ? .scp : .sftp }
            if args.accept("cancel-after") { cancelAfter = try args.integer("bytes after which the upload is cancelled", in: 0...(256 << 20)) }
            upload = (source, path, transport, cancelAfter)
        } else {
            command = try args.value("a command line, quoted, e.g. \"lpq -P psts\"")
        }
        var host = "sunfire"
        var port = 22
        var from = "phone"
        var label = "ssh"
        var user = Template(literal: "demo")
        var password = Template(literal: "demo-password")
        var within = Template(literal: "120s")
        while !args.isEmpty {
            switch try args.oneOf(["to", "user", "password", "from", "within", "as"]) {
            case "to":
                let target = try args.name("HOST or HOST:PORT")
                let parts = target.split(separator: ":").map(String.init)
                guard (1...2).contains(parts.count), let parsed = parts.count == 2 ? Int(parts[1]) : 22, (1...65_535).contains(parsed) else {
                    throw args.error("expected HOST or HOST:PORT with a port 1…65535, found '\(target)'")
                }
                host = parts[0]
                port = parsed
            case "user": user = try args.value("a user name")
            case "password": password = try args.value("a password")
            case "from": from = try args.name("a node name")
            case "within": within = try args.duration()
            default: label = try args.name("a variable name")
            }
        }
        args.declare(node: from)
        let (target, targetPort, node, name, limitText, userText, passwordText) = (host, port, from, label, within, user, password)
        let (put, line0) = (upload, command)
        // An upload that never logged in gives the command's (empty) fields too.
        args.binds(label, fields: ["status", "stdout", "stderr", "exit"] + (upload == nil ? [] : ["bytes", "size"]) + ResultBinding.performed)
        return Run { context in
            let (user, password) = context.signIn(
                "sunfire", demo: .sunfire, user: try userText.resolve(context), password: try passwordText.resolve(context))
            let connectivity = SSHConnectivity(host: target, port: targetPort, user: user, password: password, node: context.world.node(node))
            let line = try line0.resolve(context)
            let limit = try limitText.duration(context)
            let transfer = try put.map {
                (source: try $0.source.make(context), path: try $0.path.resolve(context), transport: $0.transport, cancelAfter: $0.cancelAfter)
            }
            return context.perform(transfer.map { "ssh put \($0.path)" } ?? "ssh \(line)", label: name, timeout: limit) {
                let login = await connectivity.connect()
                guard login.serverFound else {
                    return ["status": "unreachable", "error": login.failure ?? "", "stdout": "", "stderr": "", "exit": ""]
                }
                guard login.authorised else { return ["status": "refused", "error": login.failure ?? "", "stdout": "", "stderr": "", "exit": ""] }
                if let transfer {
                    let sent = ByteCounter()
                    let stop = transfer.cancelAfter.map(UInt64.init)
                    let ok = await connectivity.upload(transfer.source, to: transfer.path, transport: transfer.transport) { bytes in
                        sent.value = bytes
                        return stop.map { bytes < $0 } ?? true
                    }
                    await connectivity.disconnect()
                    let cancelled = stop.map { sent.value >= $0 } ?? false
                    let why =
                        ok
                        ? ""
                        : cancelled
                            ? "cancelled after \(sent.value) bytes, as 'cancel-after' asked"
                            : "the upload of \(transfer.path) stopped after \(sent.value) of \(transfer.source.size) bytes: the connection or the server ended it"
                    return ["status": ok ? "ok" : "failed", "error": why, "bytes": String(sent.value), "size": String(transfer.source.size)]
                }
                do {
                    let result = try await connectivity.execute(line)
                    await connectivity.disconnect()
                    return ["status": "ok", "stdout": result.stdout, "stderr": result.stderr, "exit": String(result.exitStatus)]
                } catch {
                    await connectivity.disconnect()
                    return ["status": "error", "error": "\(error)", "stdout": "", "stderr": "", "exit": ""]
                }
            }
        }
    }

    /// `sunfire`: what the host's operators can do.
    static let sunfire = Directive(
        "sunfire",
        usage: """
            sunfire printer P ready|out-of-paper|down REASON|no-daemon|queue-off | sunfire samba-job P owner U name FILE pages N | \
            sunfire quota USER N | sunfire whitelist RANGE[,RANGE…] | sunfire queue P [as NAME] | sunfire files USER [as NAME] | \
            sunfire run USER COMMAND [as NAME] — each with [on ACTOR]
            """,
        summary:
            "Sunfire's operator knobs: printer states, Samba jobs, quotas, whitelist; queue text (${NAME.text}), home files (${NAME.files}), ${NAME.ps}",
        defaults: "on sunfire, as sunfire",
        keywords: [
            "printer", "ready", "out-of-paper", "down", "no-daemon", "queue-off", "samba-job", "owner", "name", "pages", "quota",
            "whitelist", "queue", "files", "run", "on", "as",
        ]
    ) { args throws(ScenarioError) in
        let request = try SunfireAdminLine.Request(&args)
        var actor = "sunfire"
        var label = "sunfire"
        while !args.isEmpty {
            if args.accept("on") {
                actor = try args.actor()
            } else {
                try args.expect("as", "or 'on ACTOR'")
                label = try args.name("a variable name")
            }
        }
        if !args.names.contains(where: { $0.kind == .actorReference }) { args.refer(toActor: actor) }
        args.binds(label, fields: ["status"] + request.fields + ResultBinding.performed)
        let (actorName, name) = (actor, label)
        return Run { context in
            guard let running = context.actor(named: actorName) as? RunningSunfire else {
                throw StepError("no running sunfire actor named '\(actorName)'")
            }
            let resolved = try request.resolve(context)
            return context.perform("sunfire \(request.verb)", label: name, timeout: .seconds(60)) {
                try await running.sunfire.administer { admin in try resolved.apply(to: admin) }
            }
        }
    }
}

/// An administrator's `sunfire` line, typed when it is read; its words that may name variables are resolved when it runs.
private enum SunfireAdminLine {
    enum Printer: String, CaseIterable, Sendable {
        case ready
        case outOfPaper = "out-of-paper"
        case down
        case noDaemon = "no-daemon"
        case queueOff = "queue-off"
    }

    /// What the line asks, as read (templates) or as resolved (text).
    enum Request: Sendable {
        case printer(Template, Printer, reason: Template?)
        case sambaJob(printer: Template, owner: Template, name: Template, pages: Int)
        case quota(user: Template, sheets: Int)
        case whitelist(Template)
        case queue(Template)
        case files(Template)
        case run(user: Template, command: Template)

        init(_ args: inout Arguments) throws(ScenarioError) {
            switch try args.oneOf(["printer", "samba-job", "quota", "whitelist", "queue", "files", "run"]) {
            case "printer":
                let printer = try args.value("a printer name, e.g. psts")
                let state = Printer(rawValue: try args.oneOf(Printer.allCases.map(\.rawValue))) ?? .ready
                self = .printer(printer, state, reason: state == .down ? try args.value("the reason the printer shows") : nil)
            case "samba-job":
                let printer = try args.value("a printer name")
                try args.expect("owner")
                let owner = try args.value("the owner's Unix user")
                try args.expect("name")
                let name = try args.value("the file name shown in lpq")
                try args.expect("pages")
                self = .sambaJob(printer: printer, owner: owner, name: name, pages: try args.integer("a page count", in: 1...10_000))
            case "quota":
                let user = try args.value("a user")
                self = .quota(user: user, sheets: try args.integer("the PS-printer quota in sheets", in: 0...1_000_000))
            case "whitelist": self = .whitelist(try args.value("networks like 10.0.0.0/8,127.0.0.0/8"))
            case "queue": self = .queue(try args.value("a printer name"))
            case "files": self = .files(try args.value("a user"))
            default:
                let user = try args.value("a user")
                self = .run(user: user, command: try args.value("a command line, quoted"))
            }
        }

        var verb: String {
            switch self {
            case .printer: "printer"
            case .sambaJob: "samba-job"
            case .quota: "quota"
            case .whitelist: "whitelist"
            case .queue: "queue"
            case .files: "files"
            case .run: "run"
            }
        }

        /// The result fields it gives besides `status`.
        var fields: [String] {
            switch self {
            case .quota: ["ps"]
            case .queue: ["text"]
            case .files: ["files", "ps"]
            case .run: ["stdout", "stderr", "exit"]
            case .printer, .sambaJob, .whitelist: []
            }
        }

        func resolve(_ context: ScenarioContext) throws -> Resolved {
            switch self {
            case .printer(let printer, let state, let reason):
                let shown: PrinterState =
                    switch state {
                    case .outOfPaper: .down("Out of Paper")
                    case .down: .down(try reason?.resolve(context) ?? "")
                    case .noDaemon: .noDaemon
                    case .queueOff: .queueDisabled
                    case .ready: .ready
                    }
                return .printer(try printer.resolve(context), shown)
            case .sambaJob(let printer, let owner, let name, let pages):
                return .sambaJob(
                    printer: try printer.resolve(context), owner: try owner.resolve(context), name: try name.resolve(context), pages: pages)
            case .quota(let user, let sheets): return .quota(user: try user.resolve(context), sheets: sheets)
            case .whitelist(let networks):
                let text = try networks.resolve(context)
                do {
                    return .whitelist(try text.split(separator: ",").map { try AddressRange(String($0)) })
                } catch {
                    throw StepError("whitelist \(text): \(error)")
                }
            case .queue(let printer): return .queue(try printer.resolve(context))
            case .files(let user): return .files(try user.resolve(context))
            case .run(let user, let command): return .run(user: try user.resolve(context), command: try command.resolve(context))
            }
        }
    }

    /// A request with its words resolved: what the administrator does.
    enum Resolved: Sendable {
        case printer(String, PrinterState)
        case sambaJob(printer: String, owner: String, name: String, pages: Int)
        case quota(user: String, sheets: Int)
        case whitelist([AddressRange])
        case queue(String)
        case files(String)
        case run(user: String, command: String)

        func apply(to admin: SunfireAdministration) throws -> [String: String] {
            switch self {
            case .printer(let printer, let state):
                try admin.setPrinter(printer, state)
                return ["status": "ok"]
            case .sambaJob(let printer, let owner, let name, let pages):
                try admin.addSambaJob(owner: owner, printer: printer, name: name, pages: pages)
                return ["status": "ok"]
            case .quota(let user, let sheets):
                try admin.setQuota(user: user, .postScript, sheets)
                return ["status": "ok", "ps": String(sheets)]
            case .whitelist(let ranges):
                admin.setWhitelist(ranges)
                return ["status": "ok"]
            case .queue(let printer):
                return ["status": "ok", "text": try admin.queue(printer)]
            case .files(let user):
                return [
                    "status": "ok", "files": try admin.files(of: user).joined(separator: ","), "ps": String(admin.quota(of: user).first?.value ?? 0),
                ]
            case .run(let user, let command):
                let outcome = try admin.run(command, as: user)
                return [
                    "status": "ok", "stdout": String(decoding: outcome.stdout, as: UTF8.self),
                    "stderr": String(decoding: outcome.stderr, as: UTF8.self), "exit": String(outcome.exitStatus),
                ]
            }
        }
    }
}

/// What `ssh put` uploads: a generated document, a converter stand-in, or filler bytes.
enum UploadSpec: Sendable {
    case generated(OfficeFormat?, pages: Int)
    case standIn(StandInJar)
    case bytes(Int)

    static func parse(_ args: inout Arguments) throws(ScenarioError) -> UploadSpec {
        switch try args.oneOf(["generated", "stand-in", "bytes"]) {
        case "generated":
            let kind = try args.oneOf(["pdf"] + OfficeFormat.allCases.map(\.rawValue))
            try args.expect("pages")
            let pages = try args.integer("a page count", in: 1...DocumentLimits.maximumPages)
            return .generated(OfficeFormat(rawValue: kind), pages: pages)
        case "stand-in":
            let name = try args.oneOf(StandInJar.allCases.map(\.fileName))
            return .standIn(StandInJar(rawValue: name) ?? .nupPDF)
        default:
            let count = try args.integer("a size in bytes", in: 0...(256 << 20))
            return .bytes(count)
        }
    }

    func make(_ context: ScenarioContext) throws -> UploadSource {
        switch self {
        case .generated(let format?, let pages): .bytes(OfficeDocument.generate(format, pages: pages, title: "Workbench document"))
        case .generated(nil, let pages):
            .bytes(PDFWriter.document(title: "Workbench document", pages: (1...pages).map { PDFPage(lines: ["Page \($0)"]) }))
        case .standIn(let jar): .bytes(jar.bytes())
        case .bytes(let count): .bytes([UInt8](repeating: 0x2E, count: count))
        }
    }
}

/// The progress callback's last value, read once the upload is over (same loop, so no race).
final class ByteCounter: @unchecked Sendable {
    // @unchecked Sendable: written by the upload's progress callback and read after it ends, on the node's loop.
    var value: UInt64 = 0
}
