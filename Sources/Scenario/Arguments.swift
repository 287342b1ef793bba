/// The words of one directive after its name, consumed left to right by the directive's parser.
///
/// Every `expect…` method reports a precise error — column, what was expected, what was found — so a
/// malformed line is rejected before the scenario starts.
public struct Arguments: Sendable {
    public let file: String
    public let line: Int
    public let directiveColumn: Int
    private let tokens: [Token]
    private var index = 0
    /// What the line names beyond its own words: the hosts it acts on, the nodes it creates, the fault points it
    /// switches. The language checks them against what exists before anything runs.
    public internal(set) var names: [NameUse] = []
    /// The result name the line binds (`as NAME`, or the directive's default) and the fields it may give.
    public internal(set) var binding: ResultBinding?
    /// `join NAME`: the background work whose results the line binds.
    var joined: String?

    init(file: String, line: Int, directiveColumn: Int, tokens: [Token]) {
        self.file = file
        self.line = line
        self.directiveColumn = directiveColumn
        self.tokens = tokens
    }

    public var isEmpty: Bool { index >= tokens.count }
    public var peek: Token? { index < tokens.count ? tokens[index] : nil }
    public var remaining: [Token] { Array(tokens[index...]) }

    /// An error at the current word (or the end of the line).
    public func error(_ message: String) -> ScenarioError {
        let column = peek?.column ?? ((tokens.last.map { $0.column + $0.text.count + ($0.quoted ? 2 : 0) }) ?? directiveColumn)
        return ScenarioError(file: file, line: line, column: column, message: message)
    }

    private var found: String { peek.map { "'\($0.text)'" } ?? "end of line" }

    /// Takes the next word, whatever it is.
    public mutating func take(_ what: String) throws(ScenarioError) -> Token {
        guard let token = peek else { throw error("expected \(what), found end of line") }
        index += 1
        return token
    }

    /// Takes the next word if it equals `keyword` (unquoted).
    public mutating func accept(_ keyword: String) -> Bool {
        guard let token = peek, !token.quoted, token.text == keyword else { return false }
        index += 1
        return true
    }

    /// Requires the keyword `keyword` next (a word a slip away from it is named: `wrte` … did you mean 'write'?).
    public mutating func expect(_ keyword: String, _ context: String = "") throws(ScenarioError) {
        guard accept(keyword) else {
            throw error(
                "expected '\(keyword)'\(context.isEmpty ? "" : " " + context), found \(found)"
                    + (peek.map { didYouMean($0.text, among: [keyword]) } ?? ""))
        }
    }

    /// Takes one of the given keywords.
    public mutating func oneOf(_ keywords: [String]) throws(ScenarioError) -> String {
        for keyword in keywords where accept(keyword) { return keyword }
        throw error("expected one of \(keywords.joined(separator: ", ")), found \(found)" + (peek.map { didYouMean($0.text, among: keywords) } ?? ""))
    }

    /// A name: letters, digits, `-`, `_`, `.`.
    public mutating func name(_ what: String) throws(ScenarioError) -> String {
        let token = try take(what)
        let ok =
            !token.text.isEmpty
            && token.text.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || $0 == "-" || $0 == "_" || $0 == "."
            }
        guard ok, !token.quoted else {
            index -= 1
            throw error("expected \(what) (letters, digits, '-', '_', '.'), found '\(token.text)'")
        }
        return token.text
    }

    /// A value: any word or string; `${…}` is resolved when the step runs.
    public mutating func value(_ what: String) throws(ScenarioError) -> Template {
        Template(try take(what))
    }

    /// A duration such as `250ms`, `1.5s`, `2m`, `1h30m`, from 0 to ``DurationParser/limit`` (checked now unless it
    /// uses a variable; then when the step runs). Only an offset such as a clock's skew may be `signed`; a `positive` one
    /// (how long a fault lasts: `for D`) may not be 0s either.
    public mutating func duration(
        _ what: String = "a duration like 250ms or 2s", signed: Bool = false, positive: Bool = false
    ) throws(ScenarioError) -> Template {
        let token = try take(what)
        if !token.text.contains("${") {
            guard let value = DurationParser.parse(token.text) else {
                index -= 1
                if let suggestion = DurationParser.suggestion(for: token.text) {
                    throw error("expected \(what), found '\(token.text)' (did you mean '\(suggestion)'?)")
                }
                throw error("expected \(what), found '\(token.text)' (at most \(DurationParser.limitText))")
            }
            guard signed || value >= .zero else {
                index -= 1
                throw error("expected \(what), found '\(token.text)': a duration cannot be negative (0s is the shortest)")
            }
            guard !positive || value > .zero else {
                index -= 1
                throw error("expected \(what), found '\(token.text)': it must last longer than 0s")
            }
        }
        return Template(token, signed: signed)
    }

    /// A host the line acts on (`partition A <-> B`, `clock A skew …`): it must be a node the scenario has, which the
    /// language checks once it knows them all.
    public mutating func host(_ what: String = "a host name") throws(ScenarioError) -> String {
        let column = peek?.column ?? directiveColumn
        let name = try name(what)
        names.append(NameUse(kind: .host, name: name, column: column))
        return name
    }

    /// Says that the line puts a node on the network (a client's `from NODE`, an actor's host), so other lines may name it.
    public mutating func declare(node: String) {
        names.append(NameUse(kind: .node, name: node, column: directiveColumn))
    }

    /// An actor the line acts on (`stop NAME`, `… on ACTOR`): it must be one a `start` line of the scenario names.
    public mutating func actor(_ what: String = "an actor name") throws(ScenarioError) -> String {
        let column = peek?.column ?? directiveColumn
        let name = try name(what)
        names.append(NameUse(kind: .actorReference, name: name, column: column))
        return name
    }

    /// Says that the line acts on this actor without naming it (a directive's default actor).
    public mutating func refer(toActor name: String) {
        names.append(NameUse(kind: .actorReference, name: name, column: directiveColumn))
    }

    /// Says that the line starts an actor under this name.
    mutating func declare(actor: String) {
        names.append(NameUse(kind: .actor, name: actor, column: directiveColumn))
    }

    /// Says that the line starts an actor of this kind (whose fault points can then fire).
    mutating func declare(actorKind: String) {
        names.append(NameUse(kind: .actorKind, name: actorKind, column: directiveColumn))
    }

    /// Says which result name the line binds and every field it may give (nil: only known once it runs, like an actor's
    /// endpoints), so `${NAME.FIELD}` can be checked before anything runs. Include ``ResultBinding/performed`` for a
    /// directive whose work runs through ``ScenarioContext/perform(_:label:timeout:_:)``.
    public mutating func binds(_ label: String, fields: [String]?) {
        binding = ResultBinding(label: label, fields: fields.map(Set.init))
    }

    /// A fault point the line switches: it must be one that an actor or client of the catalog declares.
    public mutating func faultPoint() throws(ScenarioError) -> String {
        let column = peek?.column ?? directiveColumn
        let point = try name("a fault point name like mig.offline")
        names.append(NameUse(kind: .faultPoint, name: point, column: column))
        return point
    }

    /// A whole number in `range`: every count a scenario gives is bounded where it is read, so no later
    /// arithmetic on it can overflow.
    public mutating func integer(_ what: String, in range: ClosedRange<Int>) throws(ScenarioError) -> Int {
        let token = try take(what)
        guard let value = Int(token.text), range.contains(value) else {
            index -= 1
            throw error("expected \(what), a whole number from \(range.lowerBound) to \(range.upperBound), found '\(token.text)'")
        }
        return value
    }

    /// `host:port`.
    public mutating func endpoint(_ what: String = "HOST:PORT") throws(ScenarioError) -> (String, Int) {
        let token = try take(what)
        let parts = token.text.split(separator: ":")
        guard parts.count == 2, let port = Int(parts[1]), (1...65_535).contains(port), !parts[0].isEmpty else {
            index -= 1
            throw error("expected \(what) with a port from 1 to 65535, found '\(token.text)'")
        }
        return (String(parts[0]), port)
    }

    /// Requires that nothing is left.
    public func end() throws(ScenarioError) {
        if let token = peek { throw error("unexpected '\(token.text)' at end of line") }
    }
}

/// The result name a line binds and the fields it may give: `as p` on `mig print` gives `p.status`, `p.job`, ….
public struct ResultBinding: Sendable, Equatable {
    public let label: String
    /// Every field it may give (`""` is the name itself, `header.*` any field under `header.`); nil when only the run knows.
    public let fields: Set<String>?

    /// The fields every ``ScenarioContext/perform(_:label:timeout:_:)`` adds.
    public static let performed = ["error", "elapsed"]

    /// Whether `field` is one it may give.
    public func gives(_ field: String) -> Bool {
        guard let fields else { return true }
        return fields.contains(field) || fields.contains { $0.hasSuffix(".*") && field.hasPrefix($0.dropLast()) }
    }
}

/// What a line names: a host it acts on, a node it creates, a fault point it switches.
public struct NameUse: Sendable, Equatable {
    /// A host the line acts on, a node it puts on the network, a fault point it switches, an actor kind it starts, an
    /// actor it starts (by its name) or one it acts on, a reach point it declares (`sometimes … as LABEL`) or one it
    /// checks (`expect reached POINT`), or the trace event it looks for (`expect trace EVENT`), its author (`by NAME`),
    /// the key of a field it matches (`KEY=VALUE`, a field of `event`) and the value, when written out (no `${…}`).
    public enum Kind: Sendable, Equatable {
        case host, node, faultPoint, actorKind, actor, actorReference, reachLabel, reachPoint, traceEvent, traceAuthor
        case traceField(event: String)
        case traceValue(event: String, key: String)
    }
    public let kind: Kind
    public let name: String
    /// Where the name is written (for a declared default, the directive's column).
    public let column: Int
}

/// A word whose `${variable}` references are filled in when the step runs.
public struct Template: Sendable, CustomStringConvertible {
    public let token: Token
    /// Whether a duration written here may be negative (a clock's skew), for the check made when it is resolved.
    let signed: Bool
    public init(_ token: Token, signed: Bool = false) {
        self.token = token
        self.signed = signed
    }
    public init(literal: String) {
        token = Token(text: literal, column: 0, quoted: true)
        signed = false
    }

    public var description: String { token.quoted ? "\"\(token.text)\"" : token.text }

    /// The text with variables resolved.
    public func resolve(_ context: ScenarioContext) throws -> String {
        try context.interpolate(token.text).replacingOccurrences(of: "\u{E000}", with: "$")
    }

    /// The duration written here, resolved: a variable may hold one, but not a negative one unless it is `signed`.
    public func duration(_ context: ScenarioContext) throws -> Duration {
        let text = try resolve(context)
        let value = try parseDuration(text)
        guard signed || value >= .zero else { throw StepError("'\(text)' is a negative duration; expected 0s or more") }
        return value
    }
}
