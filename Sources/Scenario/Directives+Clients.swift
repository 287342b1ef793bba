import Foundation
import IPP
import Kernel
import NIOCore
import NIOHTTP1
import Wire
import WireHTTP

/// Directives that start actors and act as clients on the simulated wire.
extension Directive {
    static let clients: [Directive] = [
        Directive("stop", usage: "stop NAME", summary: "stop a started actor (its listeners close; restart starts it again)", live: .runs) {
            args throws(ScenarioError) in
            let name = try args.actor()
            try args.end()
            args.binds(name, fields: [])  // a stopped actor's endpoints are gone
            return Run { context in
                guard let actor = context.actor(named: name) else { throw StepError("no running actor named '\(name)'") }
                try context.world.perform("stop \(name)", timeout: .seconds(60)) { try await actor.stop() }
                context.actors.removeAll { $0.name == name }
                context.publish(name, [:])
                return nil
            }
        },
        Directive(
            "crash", usage: "crash NAME [at write N] [for DURATION]",
            summary: "crash an actor's node (simulated wire): the actor stops at once, its connections reset, its memory is gone, "
                + "and its disk keeps only what was synced (the rest lost, or its last write torn, by a seeded choice); 'for D' "
                + "restarts it D later on what is left, as restart NAME does; 'later D crash NAME' crashes it in the middle of "
                + "whatever runs then; 'at write N' cuts its power during its N-th disk write from now (a write or truncation of "
                + "any of its files; 1: the next), inside whatever step makes it (a commit half written): nothing it does after "
                + "that write reaches its disk or the network",
            defaults: "now (no 'at write'); down until 'restart NAME' (no 'for')",
            keywords: ["at", "write", "for"],
            live: .refused("a crash needs the simulated disk: on the live wire kill the served process (tools/crash-campaign.sh)")
        ) { args throws(ScenarioError) in
            let name = try args.actor()
            var atWrite: Int?
            if args.accept("at") {
                try args.expect("write", "after 'at' (crash NAME at write N)")
                atWrite = try args.integer("the disk write the power is cut during", in: 1...1_000_000)
            }
            var downtime: Template?
            if args.accept("for") { downtime = try args.duration(positive: true) }
            try args.end()
            // Without 'for', a crashed actor's endpoints are gone; with it, they come back at the restart.
            args.binds(name, fields: downtime == nil ? [] : nil)
            let lasting = downtime
            let cutAt = atWrite
            return Run { context in
                let period = try lasting.map { template throws -> Duration in
                    let duration = try template.duration(context)
                    guard duration > .zero else { throw StepError("'for \(duration.workbenchText)': expected a positive duration") }
                    return duration
                }
                guard context.actor(named: name) != nil else { throw StepError("no running actor named '\(name)'") }
                if let cutAt {
                    cutPower(of: name, atWrite: cutAt, in: context, restartAfter: period)
                } else if context.isDeferred {
                    // Deferred by `later`, inside the world's loop: nothing may wait here, so the crash runs as the
                    // world's own work, and its outcome is recorded.
                    _ = context.world.begin("crash \(name)") {
                        do { try await crash(name, in: context, restartAfter: period) } catch {
                            context.world.record(actor: "scenario", event: "later-failed", fields: [("directive", "crash"), ("error", "\(error)")])
                        }
                    }
                } else {
                    try context.world.perform("crash \(name)", timeout: .seconds(60)) { try await crash(name, in: context, restartAfter: period) }
                    context.world.settle()
                }
                return nil
            }
        },
        Directive(
            "restart", usage: "restart NAME",
            summary: "stop an actor (if it runs) and start it again on the same node with the same options: its memory is gone, "
                + "what its database and spool kept comes back (on the simulated wire, stores without a file keep nothing)",
            live: .runs
        ) { args throws(ScenarioError) in
            let name = try args.actor()
            try args.end()
            args.binds(name, fields: nil)  // its endpoints again
            return Run { context in
                guard context.launches[name] != nil else { throw StepError("no actor named '\(name)' was started") }
                try context.world.perform("restart \(name)", timeout: .seconds(120)) { try await restart(name, in: context) }
                return nil
            }
        },
        Directive(
            "connect", usage: "connect NAME to HOST:PORT [from NODE] [timeout DURATION]",
            summary: "open a raw TCP connection; ${NAME.status} is connected or error, ${NAME.error} says why",
            defaults: "from phone, timeout 10s",
            keywords: ["to", "from", "timeout"]
        ) { args throws(ScenarioError) in
            let name = try args.name("a connection name")
            try args.expect("to", "after the connection name")
            let (host, port) = try args.endpoint()
            var from = "phone"
            var timeout = Template(literal: "10s")
            while !args.isEmpty {
                if args.accept("from") {
                    from = try args.name("a node name")
                } else {
                    try args.expect("timeout")
                    timeout = try args.duration()
                }
            }
            args.declare(node: from)
            args.binds(name, fields: ["status", "error", "elapsed"])
            let (sender, connectTimeout) = (from, timeout)
            return Run { context in
                let limit = try connectTimeout.duration(context)
                let connection = TCPConnection(name: name)
                context.connections[name] = connection
                let node = context.world.node(sender)
                let started = context.world.now
                let task = context.world.begin("connect \(name)") { () -> String? in
                    do {
                        let channel = try await node.connect(host: host, port: port, timeout: .nanoseconds(limit.nanosecondsValue)) { channel in
                            channel.eventLoop.makeCompletedFuture {
                                try channel.syncOptions?.setOption(ChannelOptions.allowRemoteHalfClosure, value: true)
                                try channel.pipeline.syncOperations.addHandler(connection.handler)
                            }
                        }.get()
                        connection.channel = channel
                        return nil
                    } catch {
                        return "\(error)"
                    }
                }
                return Pending(label: name, timeout: limit + .seconds(1)) { context, timeout in
                    let error = try task.wait(timeout)
                    return [
                        "status": error == nil ? "connected" : "error", "error": error ?? "",
                        "elapsed": (context.world.now - started).workbenchText,
                    ]
                }
            }
        },
        Directive("send", usage: "send NAME TEXT", summary: "write text to a connection (use \\n for new lines)") { args throws(ScenarioError) in
            let name = try args.name("a connection name")
            let text = try args.value("the text to send")
            try args.end()
            return Run { context in
                guard let channel = context.connections[name]?.channel else { throw StepError("connection '\(name)' is not open") }
                let bytes = try text.resolve(context)
                channel.writeAndFlush(ByteBuffer(string: bytes), promise: nil)
                return nil
            }
        },
        Directive(
            "receive", usage: "receive NAME [until TEXT | bytes N | end] [within DURATION] [as NAME]",
            summary: "wait for data; ${NAME.received} holds it, ${NAME.ended} tells if the peer closed",
            defaults: "until any data arrives, within 10s, as the connection's name",
            keywords: ["until", "bytes", "end", "within", "as"]
        ) { args throws(ScenarioError) in
            let name = try args.name("a connection name")
            enum Until: Sendable {
                case any
                case text(Template)
                case bytes(Int)
                case end
            }
            var until = Until.any
            var within = Template(literal: "10s")
            var label = name
            while !args.isEmpty {
                if args.accept("as") {
                    label = try args.name("a variable name")
                } else if args.accept("until") {
                    until = .text(try args.value("the text to wait for"))
                } else if args.accept("bytes") {
                    until = .bytes(try args.integer("a byte count", in: 1...Int(Int32.max)))
                } else if args.accept("end") {
                    until = .end
                } else {
                    try args.expect("within")
                    within = try args.duration()
                }
            }
            args.binds(label, fields: ["received", "ended", "error"])
            let (condition, variable) = (until, label)
            let receiveLimit = within
            return Run { context in
                guard let connection = context.connections[name] else { throw StepError("no connection named '\(name)'") }
                let limit = try receiveLimit.duration(context)
                let needle: [UInt8]? = if case .text(let t) = condition { Array(try t.resolve(context).utf8) } else { nil }
                func satisfied() -> Bool {
                    if connection.ended || connection.error != nil { return true }
                    switch condition {
                    case .any: return !connection.received.isEmpty
                    case .bytes(let n): return connection.received.count >= n
                    case .end: return false
                    case .text: return connection.received.firstRange(of: needle!) != nil
                    }
                }
                context.world.run(for: limit, while: { !satisfied() })
                let received = String(decoding: connection.received, as: UTF8.self)
                connection.received.removeAll()
                context.publish(variable, ["received": received, "ended": String(connection.ended), "error": connection.error ?? ""])
                return nil
            }
        },
        Directive(
            "close", usage: "close NAME [write]", summary: "close a connection, or only its sending half", defaults: "both halves",
            keywords: ["write"]
        ) {
            args throws(ScenarioError) in
            let name = try args.name("a connection name")
            let writeOnly = args.accept("write")
            try args.end()
            return Run { context in
                guard let channel = context.connections[name]?.channel else { throw StepError("connection '\(name)' is not open") }
                channel.close(mode: writeOnly ? .output : .all, promise: nil)
                context.world.settle()
                return nil
            }
        },
        Directive(
            "http", usage: "http METHOD URL [header NAME VALUE]… [body TEXT | body-base64 BASE64] [chunked] [from NODE] [as NAME] [within DURATION]",
            summary: "one HTTP/1.1 exchange; ${NAME.status}, ${NAME.body}, "
                + "${NAME.header.X}, ${NAME.elapsed}, ${NAME.error}; body-base64 sends bytes that are no text (an IPP request), and "
                + "an answer whose Content-Type is no text (application/ipp) gives ${NAME.body-base64} too, an IPP one ${NAME.ipp-status} "
                + "(successful-ok, client-error-not-found…)",
            defaults: "no extra header, no body, not chunked, from phone, as http, within 30s",
            keywords: ["GET", "POST", "PUT", "DELETE", "HEAD", "header", "body", "body-base64", "chunked", "from", "as", "within"]
        ) { args throws(ScenarioError) in
            let method = try args.oneOf(["GET", "POST", "PUT", "DELETE", "HEAD", "PATCH", "OPTIONS"])
            let url = try args.value("a URL like http://host:port/path")
            var headers: [(Template, Template)] = []
            var body: Template?
            var base64 = false
            var chunked = false
            var from = "phone"
            var label = "http"
            var within = Template(literal: "30s")
            while !args.isEmpty {
                let word = try args.oneOf(["header", "body", "body-base64", "chunked", "from", "as", "within"])
                switch word {
                case "header": headers.append((try args.value("a header name"), try args.value("a header value")))
                case "body", "body-base64":
                    if body != nil { throw args.error("one body only: 'body TEXT' or 'body-base64 BASE64'") }
                    base64 = word == "body-base64"
                    let column = args.peek?.column ?? args.directiveColumn
                    body = try args.value(base64 ? "the body's bytes in base64" : "the body text")
                    if base64, let text = body?.token.text, !text.contains("${"), Data(base64Encoded: text) == nil {
                        throw ScenarioError(
                            file: args.file, line: args.line, column: column, message: "body-base64: not base64 (RFC 4648, with padding)")
                    }
                case "chunked": chunked = true
                case "from": from = try args.name("a node name")
                case "as": label = try args.name("a variable name")
                default: within = try args.duration()
                }
            }
            args.declare(node: from)
            args.binds(label, fields: ["status", "reason", "body", "body-base64", "ipp-status", "header.*", "elapsed", "error"])
            let finalHeaders = headers
            let finalBody = body
            let isBase64 = base64
            let isChunked = chunked
            let (sender, variable, exchangeLimit) = (from, label, within)
            return Run { context in
                let target = try HTTPTarget(try url.resolve(context))
                var request = HTTPRequest(method: HTTPMethod(rawValue: method), target: target.path, chunked: isChunked)
                for (name, value) in finalHeaders { request.headers.add(name: try name.resolve(context), value: try value.resolve(context)) }
                if let finalBody {
                    let text = try finalBody.resolve(context)
                    if isBase64 {
                        guard let bytes = Data(base64Encoded: text) else { throw StepError("body-base64: not base64 (RFC 4648, with padding)") }
                        request.body = ByteBuffer(bytes: bytes)
                    } else {
                        request.body = ByteBuffer(string: text)
                    }
                }
                let limit = try exchangeLimit.duration(context)
                let node = context.world.node(sender)
                let started = context.world.now
                let finalRequest = request
                let task = context.world.begin("http \(method) \(target.host)") { () -> Result<HTTPResponse, StepError> in
                    do {
                        return .success(
                            try await HTTPClient.send(
                                finalRequest, host: target.host, port: target.port, on: node,
                                timeout: .nanoseconds(limit.nanosecondsValue)))
                    } catch {
                        return .failure(StepError("\(error)"))
                    }
                }
                return Pending(label: variable, timeout: limit + .seconds(1)) { context, timeout in
                    var values = ["elapsed": ""]
                    switch try task.wait(timeout) {
                    case .success(let response):
                        values["status"] = String(response.status.code)
                        values["reason"] = response.status.reasonPhrase
                        values["body"] = response.text
                        if !Self.isText(response) { values["body-base64"] = Data(response.body.readableBytesView).base64EncodedString() }
                        if let status = Self.ippStatus(response) { values["ipp-status"] = status }
                        values["error"] = ""
                        for (name, value) in response.headers { values["header." + name.lowercased()] = value }
                    case .failure(let error):
                        values["status"] = "error"
                        values["body"] = ""
                        values["error"] = error.message
                    }
                    values["elapsed"] = (context.world.now - started).workbenchText
                    return values
                }
            }
        },
    ]
}

extension Directive {
    /// Whether an answer's body is text (its Content-Type says so, or it has none): else the `http` directive gives its
    /// bytes as `body-base64` too, since `body` shows them only as text.
    static func isText(_ response: HTTPResponse) -> Bool {
        guard let type = response.headers.first(name: "Content-Type")?.lowercased() else { return true }
        return type.hasPrefix("text/") || ["json", "xml", "x-www-form-urlencoded", "javascript"].contains { type.contains($0) }
    }

    /// An IPP answer's status by its RFC 8011 name (bytes 2–3 of the message), when the answer is IPP.
    static func ippStatus(_ response: HTTPResponse) -> String? {
        guard response.headers.first(name: "Content-Type")?.lowercased().hasPrefix("application/ipp") == true,
            let code = response.body.getInteger(at: response.body.readerIndex + 2, as: UInt16.self)
        else { return nil }
        return "\(IPPStatus(rawValue: code))"
    }

    /// `start`, checking kinds and option names against `known` as the line is parsed (when given).
    static func start(_ known: [ActorKind]) -> Directive {
        Directive(
            "start", usage: "start KIND [as NAME] [on HOST] [OPTION=VALUE]…",
            summary: "start an actor; its URLs become ${NAME.LABEL}",
            defaults: "as KIND, on the kind's own host (listed below), each option its default (listed below)", keywords: ["as", "on"]
        ) { args throws(ScenarioError) in
            let kindColumn = args.peek?.column ?? args.directiveColumn
            let kind = try args.name("an actor kind")
            var optionColumns: [String: Int] = [:]
            var name: String?
            var host: String?
            var options: [(String, Template)] = []
            while let token = args.peek {
                if args.accept("as") {
                    name = try args.name("an actor name")
                    continue
                }
                if args.accept("on") {
                    host = try args.name("a host name")
                    continue
                }
                let parts = token.text.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty else { throw args.error("expected 'as', 'on' or OPTION=VALUE, found '\(token.text)'") }
                _ = try args.take("an option")
                optionColumns[parts[0]] = token.column
                options.append((parts[0], Template(Token(text: parts[1], column: token.column, quoted: token.quoted))))
            }
            if !known.isEmpty {
                guard let actorKind = known.first(where: { $0.name == kind }) else {
                    throw ScenarioError(
                        file: args.file, line: args.line, column: kindColumn,
                        message: "no actor kind '\(kind)'; expected one of \(known.map(\.name).joined(separator: ", "))")
                }
                if let unknown = actorKind.unknownOptionName(among: options.map(\.0)) {
                    throw ScenarioError(
                        file: args.file, line: args.line, column: optionColumns[unknown] ?? kindColumn,
                        message: actorKind.unknownOptionMessage(unknown))
                }
                if let missing = actorKind.missingOptionMessage(among: options.map(\.0)) {
                    throw ScenarioError(file: args.file, line: args.line, column: kindColumn, message: missing)
                }
                // Values with a variable are checked when the actor starts, once they are known.
                let literal = options.filter { !$0.1.token.text.contains("${") }.map { ($0.0, $0.1.token.text) }
                if let (option, message) = actorKind.valueProblem(in: Dictionary(literal) { _, last in last }) {
                    throw ScenarioError(file: args.file, line: args.line, column: optionColumns[option] ?? kindColumn, message: message)
                }
            }
            if let host {
                args.declare(node: host)
            } else if let actorKind = known.first(where: { $0.name == kind }) {
                args.declare(node: actorKind.defaultHost)
            }
            args.declare(actorKind: kind)
            args.declare(actor: name ?? kind)
            args.binds(name ?? kind, fields: nil)  // its endpoints, known once it runs
            let finalOptions = options
            let givenName = name
            let givenHost = host
            return Run { context in
                guard let actorKind = context.catalog.first(where: { $0.name == kind }) else {
                    throw StepError("no actor kind '\(kind)'; known: \(context.catalog.map(\.name).joined(separator: ", "))")
                }
                let label = givenName ?? kind
                guard context.actor(named: label) == nil else { throw StepError("an actor named '\(label)' is already running") }
                if let target = context.targets[kind] {
                    // An outside server stands in for it: nothing starts, and the kind's clients go there.
                    context.world.record(actor: "scenario", event: "targeted", fields: [("actor", label), ("url", target.shown)])
                    context.publish(label, ["target": target.shown])
                    return nil
                }
                let node = context.world.node(givenHost ?? actorKind.defaultHost)
                var resolved: [String: String] = [:]
                for (key, value) in finalOptions { resolved[key] = try value.resolve(context) }
                if let unknown = actorKind.unknownOptionName(among: resolved.keys) { throw StepError(actorKind.unknownOptionMessage(unknown)) }
                if let missing = actorKind.missingOptionMessage(among: resolved.keys) { throw StepError(missing) }
                if let (_, message) = actorKind.valueProblem(in: resolved) { throw StepError(message) }
                let actorOptions = resolved
                let task = context.world.begin("start \(label)") { try await actorKind.start(node, actorOptions) }
                return Pending(label: label, timeout: .seconds(60)) { context, timeout in
                    let actor = try task.wait(timeout)
                    context.actors.append((label, actor))
                    context.launches[label] = ScenarioContext.Launch(kind: actorKind, node: node.name, options: actorOptions)
                    var values: [String: String] = [:]
                    for endpoint in actor.endpoints { values[endpoint.label] = endpoint.url }
                    return values
                }
            }
        }
    }
}

/// `http://host[:port]/path?query` split for a request.
struct HTTPTarget {
    let host: String
    let port: Int
    let path: String

    init(_ url: String) throws {
        guard url.hasPrefix("http://") else { throw StepError("'\(url)' is not an http:// URL (https needs the TLS-aware clients of the actors)") }
        let rest = url.dropFirst("http://".count)
        let authority = rest.prefix { $0 != "/" }
        path = rest.dropFirst(authority.count).isEmpty ? "/" : String(rest.dropFirst(authority.count))
        let hostPort = authority.split(separator: "@").last ?? authority
        let parts = hostPort.split(separator: ":")
        guard let first = parts.first, !first.isEmpty else { throw StepError("no host in '\(url)'") }
        host = String(first)
        guard parts.count <= 2 else { throw StepError("'\(url)': expected http://HOST[:PORT]/PATH (IPv6 literals are not supported)") }
        if parts.count == 2 {
            guard let value = Int(parts[1]), (1...65_535).contains(value) else {
                throw StepError("'\(url)': the port must be a number from 1 to 65535, found '\(parts[1])'")
            }
            port = value
        } else {
            port = 80
        }
    }
}

/// A crash owed to an actor whose power was cut while a `restart` was starting it.
struct PendingCrash {
    /// How long it stays down (`crash NAME at write N for D`); nil: until `restart NAME`.
    let downtime: Duration?
}

/// Crashes the actor `name`: it stops at once, its node's connections reset and its disk loses what was not synced;
/// with `restartAfter`, it is started again that much later on what its disk kept (unless something restarted it
/// first). Runs as the world's work, on its loop: a `crash` line waits for it, a deferred one does not. With
/// `evenIfNotRunning` an actor not running is no error: its node crashes all the same (a power cut during a stop, or
/// during a start that failed).
private func crash(_ name: String, in context: ScenarioContext, restartAfter downtime: Duration?, evenIfNotRunning: Bool = false) async throws {
    guard let launch = context.launches[name] else { throw StepError("no actor named '\(name)' was started") }
    if let actor = context.actor(named: name) {
        try await actor.crash()
        context.actors.removeAll { $0.name == name }
        context.publish(name, [:])
    } else if !evenIfNotRunning {
        throw StepError("no running actor named '\(name)'")
    }
    let crashed = context.kernel.crash(node: launch.node)
    context.world.record(
        actor: "scenario", event: "crashed",
        fields: [
            ("actor", name), ("connections-reset", String(crashed.connections)), ("files-lost", String(crashed.lost)),
            ("files-torn", String(crashed.torn)), ("node", launch.node),
        ])
    guard let downtime else { return }
    context.world.schedule(in: downtime) {
        // A `restart` line in the meantime brought it back already.
        guard context.actor(named: name) == nil else { return }
        _ = context.world.begin("restart \(name)") {
            do { try await restart(name, in: context) } catch {
                context.world.record(actor: "scenario", event: "later-failed", fields: [("directive", "restart"), ("error", "\(error)")])
            }
        }
    }
}

/// Arms a power cut of `name`'s node during its `write`-th disk write from now. When it falls (inside whatever step
/// made that write) the node is silenced at once, so nothing it does for the rest of that step leaves it (an answer to
/// a commit its disk never finished is never sent), and its crash runs as the world's next work, as a deferred `crash`.
private func cutPower(of name: String, atWrite write: Int, in context: ScenarioContext, restartAfter downtime: Duration?) {
    guard let node = context.launches[name]?.node else { return }
    context.kernel.disk(of: node).cutPower(atChange: write) { path in
        context.kernel.network.silence(host: node)
        context.world.record(
            actor: "scenario", event: "power-cut", fields: [("actor", name), ("file", path), ("node", node), ("write", String(write))])
        _ = context.world.begin("crash \(name)") {
            // Another crash of the node since the cut (one drawn for the same moment) has ended this life already.
            guard context.kernel.disk(of: node).isPowerCut else { return }
            if context.actor(named: name) == nil, context.starting.contains(name) {
                // Cut during a restart's start (its recovery's writes): crashed as soon as the start ends.
                context.crashOnceStarted[name] = PendingCrash(downtime: downtime)
                return
            }
            // Running, or stopped since the cut was armed (a stopped actor stays down).
            let running = context.actor(named: name) != nil
            do { try await crash(name, in: context, restartAfter: running ? downtime : nil, evenIfNotRunning: true) } catch {
                context.world.record(actor: "scenario", event: "later-failed", fields: [("directive", "crash"), ("error", "\(error)")])
            }
        }
    }
}

/// Stops the actor `name` if it runs, then starts it again on its node with the options it was started with: what its
/// stores kept comes back, its endpoints with it.
private func restart(_ name: String, in context: ScenarioContext) async throws {
    guard let launch = context.launches[name] else { throw StepError("no actor named '\(name)' was started") }
    if let actor = context.actor(named: name) {
        try await actor.stop()
        context.actors.removeAll { $0.name == name }
    }
    context.starting.insert(name)
    let started: Result<any RunningActor, any Error>
    do { started = .success(try await launch.kind.start(context.world.node(launch.node), launch.options)) } catch { started = .failure(error) }
    context.starting.remove(name)
    if case .success(let actor) = started {
        context.actors.append((name, actor))
        context.world.record(actor: "scenario", event: "restarted", fields: [("actor", name)])
        context.publish(name, Dictionary(actor.endpoints.map { ($0.label, $0.url) }) { _, last in last })
    }
    // The power was cut during the start: nothing it did after the cut counts, and the node crashes now.
    if let pending = context.crashOnceStarted.removeValue(forKey: name) {
        try await crash(name, in: context, restartAfter: pending.downtime, evenIfNotRunning: true)
    }
    _ = try started.get()
}
