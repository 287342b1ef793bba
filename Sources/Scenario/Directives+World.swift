import Kernel
import Wire

/// Directives about the simulated world itself: time, the network, faults, clocks and the bus.
extension Directive {
    static let world: [Directive] = [
        Directive(
            "advance", usage: "advance DURATION",
            summary: "let virtual time pass, running everything due (live: every served node's clock jumps forward, without waiting)", live: .runs
        ) { args throws(ScenarioError) in
            let amount = try args.duration()
            try args.end()
            return Run { context in
                let duration = try amount.duration(context)
                guard context.world.now + duration <= Kernel.horizon else {
                    throw StepError(
                        "advance \(duration.workbenchText): virtual time would pass the simulation's horizon, "
                            + "\(Kernel.horizon.workbenchText) after its start (it is now \(context.world.now.workbenchText))")
                }
                try context.world.advance(by: duration)
                return nil
            }
        },
        Directive(
            "link", usage: "link A -> B | A <-> B [latency DELAY | uniform MIN..MAX | normal MEAN DEV | exponential MEAN] [bandwidth RATE]",
            summary: "set latency and bandwidth between two hosts (one way or both)",
            defaults: "what the line leaves out stays as it was (at first: no latency, no bandwidth limit)",
            keywords: ["->", "<->", "latency", "uniform", "normal", "exponential", "bandwidth"], live: .runs
        ) { args throws(ScenarioError) in
            let path = try parsePath(&args)
            var latency: Latency?
            var bandwidth: Int?
            while !args.isEmpty {
                switch try args.oneOf(["latency", "bandwidth"]) {
                case "latency": latency = try parseLatency(&args)
                default:
                    let token = try args.take("a rate like 1MB/s or 10Mbit/s")
                    guard let rate = RateParser.parse(token.text) else {
                        throw ScenarioError(
                            file: args.file, line: args.line, column: token.column,
                            message: "expected a rate like 1MB/s, 500kB/s or 10Mbit/s from \(RateParser.rangeText), found '\(token.text)'")
                    }
                    bandwidth = rate
                }
            }
            guard latency != nil || bandwidth != nil else { throw args.error("expected 'latency' or 'bandwidth'") }
            let (newLatency, newBandwidth) = (latency, bandwidth)
            return Run { context in
                for (from, to) in path.directions {
                    var conditions = context.world.links.conditions(from: from, to: to)
                    if let newLatency { conditions.latency = newLatency }
                    if let newBandwidth { conditions.bandwidth = newBandwidth }
                    context.world.links.setConditions(from: from, to: to, conditions)
                }
                return nil
            }
        },
        pathSwitch("partition", summary: "cut a path: traffic waits, senders time out ('for D' heals it D later)", undo: "heal") {
            $0.setPartitioned(from: $1, to: $2, $3)
        },
        pathSwitch("heal", summary: "end a partition; waiting traffic flows") { $0.setPartitioned(from: $1, to: $2, !$3) },
        pathSwitch("hold", summary: "hold traffic on a path (it waits, nobody times out; 'for D' releases it D later)", undo: "release") {
            $0.setHeld(from: $1, to: $2, $3)
        },
        pathSwitch("release", summary: "let held traffic through, in order") { $0.setHeld(from: $1, to: $2, !$3) },
        Directive(
            "reset", usage: "reset A <-> B | reset A -> B after N bytes",
            summary: "reset open connections now, or the one carrying the N-th byte from now", keywords: ["->", "<->", "after", "bytes"],
            live: .runs
        ) { args throws(ScenarioError) in
            let path = try parsePath(&args)
            if args.accept("after") {
                let count = try args.integer("a byte count", in: 1...Int(Int32.max))
                try args.expect("bytes", "after the count")
                try args.end()
                return Run { context in
                    for (from, to) in path.directions { context.world.links.resetAfter(bytes: count, from: from, to: to) }
                    return nil
                }
            }
            try args.end()
            return Run { context in
                context.world.links.resetConnections(between: path.a, and: path.b)
                return nil
            }
        },
        Directive(
            "fault", usage: "fault POINT on | off | once | times N | chance P | after N",
            summary: "switch a named fault point (chance draws from the seeded stream)",
            keywords: ["on", "off", "once", "times", "chance", "after"], live: .runs
        ) { args throws(ScenarioError) in
            let point = try args.faultPoint()
            let mode: FaultPoints.Mode
            switch try args.oneOf(["on", "off", "once", "times", "chance", "after"]) {
            case "on": mode = .on
            case "off": mode = .off
            case "once": mode = .times(1)
            case "times": mode = .times(try args.integer("how many times", in: 1...1_000_000_000))
            case "after": mode = .after(try args.integer("how many checks to let pass", in: 0...1_000_000_000))
            default:
                let token = try args.take("a probability between 0 and 1")
                guard let p = Double(token.text), (0...1).contains(p) else {
                    throw ScenarioError(
                        file: args.file, line: args.line, column: token.column,
                        message: "expected a probability between 0 and 1, found '\(token.text)'")
                }
                mode = .chance(p)
            }
            try args.end()
            return Run { context in
                context.world.faults.set(point, mode)
                context.world.record(actor: "scenario", event: "fault", fields: [("mode", mode.description), ("point", point)])
                return nil
            }
        },
        Directive(
            "address", usage: "address NODE IP",
            summary: "give a node a fixed IP address, as its peers see it (e.g. a phone outside a host's whitelist)",
            live: .refused("a served actor sees each client's real address; a client is the node named by its address (127.0.0.1)")
        ) { args throws(ScenarioError) in
            let node = try args.host("a node name")
            let address = try args.value("an IPv4 or IPv6 address like 203.0.113.7")
            try args.end()
            return Run { context in
                let text = try address.resolve(context)
                do {
                    try context.kernel.network.setAddress(text, of: node)
                } catch {
                    throw StepError("address \(node) \(text): expected an IPv4 or IPv6 address")
                }
                return nil
            }
        },
        Directive(
            "clock", usage: "clock NODE skew DURATION", summary: "make a node's calendar clock run ahead (+) or behind (-)", keywords: ["skew"],
            live: .runs
        ) { args throws(ScenarioError) in
            let node = try args.host("a node name")
            try args.expect("skew", "after the node name")
            let amount = try args.duration("a signed duration like +30s or -2m", signed: true)
            try args.end()
            return Run { context in
                let skew = try amount.duration(context)
                context.world.skew(of: node).set(skew)
                context.world.record(actor: "scenario", event: "clock-skew", fields: [("node", node), ("skew", skew.workbenchText)])
                return nil
            }
        },
        Directive(
            "open", usage: "open URL [from NODE] [as NAME]", summary: "open a URL on the bus; NAME (default 'open') is true or false",
            defaults: "from phone, as open",
            keywords: ["from", "as"]
        ) { args throws(ScenarioError) in
            let url = try args.value("a URL")
            var from = "phone"
            var label = "open"
            while !args.isEmpty {
                if args.accept("from") {
                    from = try args.name("a node name")
                } else {
                    try args.expect("as")
                    label = try args.name("a variable name")
                }
            }
            args.declare(node: from)
            args.binds(label, fields: [""])
            let (sender, name) = (from, label)
            return Run { context in
                let opened = context.world.node(sender).bus.open(try url.resolve(context), from: sender)
                context.publish(name, ["": String(opened)])
                return nil
            }
        },
        Directive(
            "foreground", usage: "foreground [APP] [as NAME]",
            summary: "the user brings APP to the front (app switcher); NAME (default 'foreground') is the app in front, or home-screen",
            defaults: "no APP (only reads which app is in front), as foreground",
            keywords: ["as"]
        ) { args throws(ScenarioError) in
            var app: String?
            if let next = args.peek, !(next.text == "as" && !next.quoted) { app = try args.name("an app (node) name") }
            let label = args.accept("as") ? try args.name("a variable name") : "foreground"
            try args.end()
            args.binds(label, fields: [""])
            let (target, name) = (app, label)
            return Run { context in
                if let target {
                    guard context.world.bus.activate(target) else {
                        throw StepError("no app '\(target)' on the phone; expected an app that declared its Info.plist or handles a URL scheme")
                    }
                    context.world.settle()
                }
                context.publish(name, ["": context.world.bus.foregroundApp ?? "home-screen"])
                return nil
            }
        },
    ]
}

/// A directive `NAME A -> B | A <-> B` that applies `change` to each direction of the path (`true`: switch on).
/// With `undo`, it also takes `for DURATION`: the change is undone that much later, whatever the scenario is doing
/// then (a swarm's partition lasts a few seconds of someone's upload, not until the next statement).
private func pathSwitch(
    _ name: String, summary: String, undo: String? = nil,
    _ change: @escaping @Sendable (any LinkControl, String, String, Bool) -> Void
) -> Directive {
    Directive(
        name, usage: "\(name) A -> B | A <-> B" + (undo == nil ? "" : " [for DURATION]"), summary: summary,
        defaults: undo.map { "until '\($0)' (no 'for')" } ?? "",
        keywords: ["->", "<->"] + (undo == nil ? [] : ["for"]), live: .runs
    ) { args throws(ScenarioError) in
        let path = try parsePath(&args)
        var lasting: Template?
        if undo != nil, args.accept("for") { lasting = try args.duration(positive: true) }
        try args.end()
        let period = lasting
        return Run { context in
            for (from, to) in path.directions { change(context.world.links, from, to, true) }
            if let period {
                let duration = try period.duration(context)
                guard duration > .zero else { throw StepError("'for \(duration.workbenchText)': expected a positive duration") }
                let links = context.world.links
                context.world.schedule(in: duration) {
                    for (from, to) in path.directions { change(links, from, to, false) }
                }
            }
            return nil
        }
    }
}

/// The two ends of `A -> B` or `A <-> B`.
struct Path: Sendable {
    let a: String
    let b: String
    let bothWays: Bool
    var directions: [(String, String)] { bothWays ? [(a, b), (b, a)] : [(a, b)] }
}

func parsePath(_ args: inout Arguments) throws(ScenarioError) -> Path {
    let a = try args.host()
    let arrow = try args.oneOf(["->", "<->"])
    let b = try args.host()
    return Path(a: a, b: b, bothWays: arrow == "<->")
}

/// The longest one-way delay a link may have: a day (a longer outage is a `partition`).
let maximumLatency: Duration = .seconds(86_400)

func parseLatency(_ args: inout Arguments) throws(ScenarioError) -> Latency {
    func delay(_ text: String) -> Duration? {
        guard let value = DurationParser.parse(text), value >= .zero, value <= maximumLatency else { return nil }
        return value
    }
    func nanos(_ args: inout Arguments) throws(ScenarioError) -> Int64 {
        let token = try args.take("a delay like 20ms")
        guard let value = delay(token.text) else {
            throw ScenarioError(
                file: args.file, line: args.line, column: token.column, message: "expected a delay like 20ms from 0 to 24h, found '\(token.text)'")
        }
        return value.nanosecondsValue
    }
    if args.accept("uniform") {
        let token = try args.take("MIN..MAX")
        let parts = token.text.components(separatedBy: "..")
        guard parts.count == 2, let low = delay(parts[0]), let high = delay(parts[1]), low <= high else {
            throw ScenarioError(
                file: args.file, line: args.line, column: token.column,
                message: "expected MIN..MAX like 10ms..30ms, each from 0 to 24h, found '\(token.text)'")
        }
        return .uniform(low.nanosecondsValue, high.nanosecondsValue)
    }
    if args.accept("normal") { return .normal(mean: try nanos(&args), deviation: try nanos(&args)) }
    if args.accept("exponential") { return .exponential(mean: try nanos(&args)) }
    return .fixed(try nanos(&args))
}

/// Parses a scenario duration (`250ms`, `2s`, `15min`) or says what was expected.
public func parseDuration(_ text: String) throws -> Duration {
    guard let duration = DurationParser.parse(text) else {
        let hint = DurationParser.suggestion(for: text).map { " (did you mean '\($0)'?)" } ?? ""
        throw StepError("'\(text)' is not a duration like 250ms or 2s of at most \(DurationParser.limitText)\(hint)")
    }
    return duration
}

/// A step made of a closure.
public struct Run: Step {
    let body: @Sendable (ScenarioContext) throws -> Pending?
    public init(_ body: @escaping @Sendable (ScenarioContext) throws -> Pending?) { self.body = body }
    public func run(_ context: ScenarioContext) throws -> Pending? { try body(context) }
}
