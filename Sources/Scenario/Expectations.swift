import Kernel
import Wire

/// `expect` in its forms (trace, no trace, elapsed, reached, a comparison or a set of acceptable outcomes). A failed
/// expectation is recorded with expected vs actual and the file:line; the scenario goes on so one run reports every
/// broken expectation. `sometimes` checks the same conditions, and only counts the ones that hold.
enum Expectations {
    static let operators = ["==", "!=", "contains", "!contains", "matches", "<", "<=", ">", ">="]

    /// What `expect` and `sometimes` check: the condition as written, and how to check it now (nil when it holds,
    /// else why not).
    struct Condition: Sendable {
        let text: String
        let failure: @Sendable (ScenarioContext) throws -> String?
    }

    static func parse(_ args: inout Arguments) throws(ScenarioError) -> any Step {
        let condition = try self.condition(&args)
        return Run { context in
            context.record("expect \(condition.text)", failure: try condition.failure(context))
            return nil
        }
    }

    static func condition(_ args: inout Arguments) throws(ScenarioError) -> Condition {
        let text = args.remaining.map { $0.quoted ? "\"\($0.text)\"" : $0.text }.joined(separator: " ")
        if args.accept("reached") {
            let column = args.peek?.column ?? args.directiveColumn
            let point = try args.name("a reach point name like mig.job-held-then-completed")
            try args.end()
            args.names.append(NameUse(kind: .reachPoint, name: point, column: column))
            return Condition(text: "reached \(point)") { context in
                context.reach?.check(context)
                return context.reached.contains(point)
                    ? nil
                    : "expected reach point \(point) reached, it was not; reached so far: "
                        + (context.reached.isEmpty ? "none" : context.reached.sorted().joined(separator: ", "))
            }
        }
        if args.accept("no") {
            try args.expect("trace", "after 'no'")
            let pattern = try TracePattern.parse(&args, allowWithin: false)
            return Condition(text: "no trace \(pattern.text)") { context in
                let fields = try pattern.resolvedFields(context)
                let hits = context.world.events.filter { pattern.matches($0, fields) }
                return hits.isEmpty ? nil : "expected no trace event \(pattern.text), found \(hits.count), first: \(hits[0].canonicalLine)"
            }
        }
        if args.accept("trace") {
            let pattern = try TracePattern.parse(&args, allowWithin: false)
            return Condition(text: "trace \(pattern.text)") { context in
                let fields = try pattern.resolvedFields(context)
                let found = context.world.events.contains { pattern.matches($0, fields) }
                let sameName = context.world.events.filter { $0.event == pattern.event }.suffix(3).map(\.canonicalLine)
                return found
                    ? nil
                    : "expected a trace event \(pattern.text), found none"
                        + (sameName.isEmpty ? "" : "; last '\(pattern.event)' events: \(sameName.joined(separator: " "))")
            }
        }
        if args.accept("requests") { return try requests(&args) }
        if args.accept("elapsed") {
            try args.expect("since", "after 'elapsed'")
            let mark = try args.name("a mark name")
            let op = try args.oneOf(["<", "<=", ">", ">=", "==", "!="])
            let bound = try args.duration()
            try args.end()
            return Condition(text: "elapsed since \(mark) \(op) \(bound)") { context in
                guard let start = context.marks[mark] else { throw StepError("no mark named '\(mark)' (set one with 'mark \(mark)')") }
                let elapsed = context.world.now - start
                let limit = try bound.duration(context)
                if !context.isSimulated, op == "==" || op == "!=" {
                    return Self.liveDurationsEqual(elapsed, limit) == (op == "==")
                        ? nil
                        : "expected elapsed since \(mark) \(op) \(limit.workbenchText) (\(Self.liveSlackText(limit))), actual \(elapsed.workbenchText)"
                }
                let holds = compare(elapsed, op, limit)
                return holds ? nil : "expected elapsed since \(mark) \(op) \(limit.workbenchText), actual \(elapsed.workbenchText)"
            }
        }
        let lhs = try args.value("a value")
        if args.accept("in") { return try outcomeSet(lhs, &args, text: text) }
        let op = try args.oneOf(operators + ["in"])
        let rhs = try args.value("a value")
        try args.end()
        // Every text contains the empty one and matches the empty pattern: such a check could never fail.
        if rhs.token.text.isEmpty, ["contains", "!contains", "matches"].contains(op) {
            let outcome = op == "!contains" ? "no value passes it: this check can never pass" : "every value passes it: this check can never fail"
            throw ScenarioError(
                file: args.file, line: args.line, column: rhs.token.column,
                message: "'\(op) \"\"': \(outcome); expected the text to look for (to check a value is empty: 'expect VALUE == \"\"')")
        }
        var compiled: CompiledPattern?
        if op == "matches", !rhs.token.text.contains("${") {
            do { compiled = CompiledPattern(try Regex(rhs.token.text)) } catch {
                throw ScenarioError(file: args.file, line: args.line, column: rhs.token.column, message: "expected a regular expression: \(error)")
            }
        }
        // A pattern without variables is compiled once, here: compiling costs far more than matching, and a swarm
        // checks the same line thousands of times.
        let pattern = compiled
        return Condition(text: text) { context in
            let actual = try lhs.resolve(context)
            let expected = try rhs.resolve(context)
            if !context.isSimulated, op == "==" || op == "!=", Double(actual) == nil, let a = DurationParser.parse(actual),
                let b = DurationParser.parse(expected)
            {
                return liveDurationsEqual(a, b) == (op == "==")
                    ? nil : "expected \(lhs) \(op) \(quoteForMessage(expected)) (\(liveSlackText(b))), actual \(quoteForMessage(actual))"
            }
            let holds = try pattern.map { try $0.regex.firstMatch(in: actual) != nil } ?? check(actual, op, expected)
            return holds ? nil : "expected \(lhs) \(op) \(quoteForMessage(expected)), actual \(quoteForMessage(actual))"
        }
    }

    /// `expect requests NODE [REQUEST] [status STATUS] count OP N`: how many requests the node's actor answered (as the
    /// request log counts them: an HTTP method and path, an IPP operation, an SSH command), those matching REQUEST (the
    /// whole request, its method or its path) and STATUS. WireMock's `verify`, on either wire.
    static func requests(_ args: inout Arguments) throws(ScenarioError) -> Condition {
        let column = args.peek?.column ?? args.directiveColumn
        let node = try args.name("the node whose actor answered (as 'expect trace … by NODE' names it)")
        args.names.append(NameUse(kind: .traceAuthor, name: node, column: column))
        var request: Template?
        var status: Template?
        while let token = args.peek, !(token.text == "count" && !token.quoted) {
            if args.accept("status") {
                status = try args.value("a status (503, successful-ok, exit-0)")
            } else if request == nil {
                request = try args.value("a request (Print-Job, POST, /path or 'POST /path')")
            } else {
                throw args.error("expected 'status' or 'count', found '\(token.text)'")
            }
        }
        try args.expect("count", "after the request")
        let op = try args.oneOf(["==", "!=", "<", "<=", ">", ">="])
        let bound = try args.integer("a count", in: 0...Int(Int32.max))
        try args.end()
        let (wanted, answered) = (request, status)
        let text = "requests \(node)" + (request.map { " \($0)" } ?? "") + (status.map { " status \($0)" } ?? "") + " count \(op) \(bound)"
        return Condition(text: text) { context in
            let named = try wanted?.resolve(context)
            let status = try answered?.resolve(context)
            let matching = JournalRequests.of(context.world.events, actor: node).filter { entry in
                (named.map { entry.request == $0 || entry.request.hasPrefix($0 + " ") || entry.request.hasSuffix(" " + $0) } ?? true)
                    && (status.map { entry.status == $0 } ?? true)
            }
            return compare(matching.count, op, bound)
                ? nil
                : "expected \(text.dropFirst("requests ".count)), found \(matching.count)"
                    + (matching.isEmpty ? "" : ": " + matching.suffix(3).map { "\"\($0.request)\" \($0.status)" }.joined(separator: ", "))
        }
    }

    /// `expect VALUE in A B …`: the value is one of several acceptable outcomes (a swarm workload under faults
    /// may end either way; what it must never do is end some third way).
    static func outcomeSet(_ lhs: Template, _ args: inout Arguments, text: String) throws(ScenarioError) -> Condition {
        var accepted: [Template] = []
        while !args.isEmpty { accepted.append(try args.value("an acceptable outcome")) }
        guard !accepted.isEmpty else { throw args.error("expected one or more acceptable outcomes after 'in', e.g. 'in 200 503'") }
        let outcomes = accepted
        return Condition(text: text) { context in
            let actual = try lhs.resolve(context)
            let allowed = try outcomes.map { try $0.resolve(context) }
            return allowed.contains(actual)
                ? nil : "expected \(lhs) in \(allowed.map(quoteForMessage).joined(separator: " ")), actual \(quoteForMessage(actual))"
        }
    }

    static func check(_ actual: String, _ op: String, _ expected: String) throws -> Bool {
        switch op {
        case "==": return actual == expected
        case "!=": return actual != expected
        case "contains": return actual.contains(expected)
        case "!contains": return !actual.contains(expected)
        case "matches": return try Regex(expected).firstMatch(in: actual) != nil
        default:
            if let a = DurationParser.parse(actual), let b = DurationParser.parse(expected), Double(actual) == nil || Double(expected) == nil {
                return compare(a, op, b)
            }
            guard let a = Double(actual), let b = Double(expected) else {
                throw StepError("'\(op)' compares numbers or durations; got \(quoteForMessage(actual)) and \(quoteForMessage(expected))")
            }
            return compare(a, op, b)
        }
    }

    /// Whether a time measured on the live wire counts as equal to the one a line names: within 50 ms or a quarter of
    /// it, the larger, either way. Real sockets neither time a handshake nor gather bytes into segments as the model
    /// does, and the machine adds its own time; the order of magnitude and the shape (a back-off's doubling, a
    /// latency's round trips) are what a live run can check.
    static func liveDurationsEqual(_ measured: Duration, _ named: Duration) -> Bool {
        let slack = max(.milliseconds(50), named / 4)
        return measured >= named - slack && measured <= named + slack
    }

    static func liveSlackText(_ named: Duration) -> String {
        "live: within \(max(.milliseconds(50), named / 4).workbenchText) either way"
    }

    static func compare<T: Comparable>(_ a: T, _ op: String, _ b: T) -> Bool {
        switch op {
        case "<": a < b
        case "<=": a <= b
        case ">": a > b
        case ">=": a >= b
        case "==": a == b
        default: a != b
        }
    }
}

private func compare<T: Comparable>(_ a: T, _ op: String, _ b: T) -> Bool { Expectations.compare(a, op, b) }

/// `EVENT [by NODE] [FIELD=VALUE]… [within DURATION]`, matched against trace events.
struct TracePattern: Sendable {
    let event: String
    let actor: String?
    let fields: [(String, Template)]
    let within: Template
    let text: String

    static func parse(_ args: inout Arguments, allowWithin: Bool) throws(ScenarioError) -> TracePattern {
        let text = args.remaining.map(\.text).joined(separator: " ")
        let eventColumn = args.peek?.column ?? args.directiveColumn
        let event = try args.name("an event name")
        args.names.append(NameUse(kind: .traceEvent, name: event, column: eventColumn))
        var actor: String?
        var fields: [(String, Template)] = []
        var within = Template(literal: "60s")
        while let token = args.peek {
            if args.accept("by") {
                let column = args.peek?.column ?? args.directiveColumn
                actor = try args.name("a node name (the node that records the event)")
                args.names.append(NameUse(kind: .traceAuthor, name: actor ?? "", column: column))
                continue
            }
            if allowWithin, args.accept("within") {
                within = try args.duration()
                continue
            }
            let parts = token.text.split(separator: "=", maxSplits: 1).map(String.init)
            guard parts.count == 2 else { throw args.error("expected 'by', FIELD=VALUE\(allowWithin ? " or 'within'" : ""), found '\(token.text)'") }
            _ = try args.take("a field")
            args.names.append(NameUse(kind: .traceField(event: event), name: parts[0], column: token.column))
            // A value with a variable is only known when the line runs; `\$` is a literal `$`, as the run resolves it.
            if !parts[1].contains("${") {
                let column = token.column + (token.quoted ? 1 : 0) + parts[0].count + 1
                let value = parts[1].replacingOccurrences(of: "\u{E000}", with: "$")
                args.names.append(NameUse(kind: .traceValue(event: event, key: parts[0]), name: value, column: column))
            }
            fields.append((parts[0], Template(Token(text: parts[1], column: token.column, quoted: token.quoted))))
        }
        return TracePattern(event: event, actor: actor, fields: fields, within: within, text: text)
    }

    func resolvedFields(_ context: ScenarioContext) throws -> [(String, String)] {
        try fields.map { ($0.0, try $0.1.resolve(context)) }
    }

    func matches(_ e: Trace.Event, _ resolved: [(String, String)]) -> Bool {
        e.event == event && (actor == nil || e.actor == actor) && resolved.allSatisfy { e[$0.0] == $0.1 }
    }
}

/// A `matches` pattern compiled when its line is read, shared by every run of that line.
final class CompiledPattern: @unchecked Sendable {
    // @unchecked Sendable: a Regex is immutable once made, and its matching program is built here, before the line can
    // run anywhere (the library builds it once, under an atomic, on first use).
    let regex: Regex<AnyRegexOutput>

    init(_ regex: Regex<AnyRegexOutput>) {
        self.regex = regex
        _ = try? regex.firstMatch(in: "")
    }
}
