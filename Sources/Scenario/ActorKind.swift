import Wire

/// A kind of actor a scenario can `start` and `workbench serve` can serve: the catalog entry that adapts an
/// actor module to the scenario language without the engine knowing its protocol.
public struct ActorKind: Sendable {
    /// The word after `start`, e.g. `echo`, `mig`.
    public let name: String
    /// One line for `help start`.
    public let summary: String
    /// The node it runs on unless `on HOST` says otherwise.
    public let defaultHost: String
    /// Options it understands (`name=value` after `start`), with their meaning and the values they take.
    public let options: [ActorOption]
    /// The fault points its actors check (`fault POINT …` can name them once one is started).
    public let faultPoints: [String]
    /// Starts one instance on `node` with the given options.
    public let start: @Sendable (_ node: Node, _ options: [String: String]) async throws -> any RunningActor
    /// The URL schemes of an outside server that may stand in for it (`--target KIND=URL`), each with the port it
    /// implies; empty when its clients cannot be pointed elsewhere.
    public let targetSchemes: [String: Int]
    /// An example target URL for help texts.
    public let targetExample: String

    public init(
        name: String, summary: String, defaultHost: String, targetSchemes: [String: Int] = [:], targetExample: String = "",
        options: [ActorOption] = [], faultPoints: [String] = [],
        start: @escaping @Sendable (_ node: Node, _ options: [String: String]) async throws -> any RunningActor
    ) {
        self.targetSchemes = targetSchemes
        self.targetExample = targetExample
        self.name = name
        self.summary = summary
        self.defaultHost = defaultHost
        self.options = options
        self.faultPoints = faultPoints
        self.start = start
    }
}

/// One `OPTION=VALUE` an actor kind takes: its meaning, and which values it accepts, so a wrong value stops a
/// scenario when its line is read instead of when the actor starts.
public struct ActorOption: Sendable {
    public let name: String
    public let meaning: String
    /// Whether the actor cannot start without it (a stub's recording): a `start` line without it is refused when read,
    /// and `serve` serves such a kind only when asked with its options.
    public let required: Bool
    /// Why `value` is refused (naming the option and what it expects), or nil when it is accepted.
    public let problem: @Sendable (_ value: String) -> String?
    /// What its values are, for a typed face of the options (WorkbenchKit's generated option structs).
    public let value: ActorOptionValue

    public init(
        _ name: String, _ meaning: String, required: Bool = false, value: ActorOptionValue = .text,
        problem: @escaping @Sendable (_ value: String) -> String?
    ) {
        self.name = name
        self.meaning = meaning
        self.required = required
        self.value = value
        self.problem = problem
    }
}

/// What an actor option's values are. Every value is still the line's word, checked by the option's `problem`; this
/// says which Swift type stands for the words.
public enum ActorOptionValue: Sendable, Equatable {
    /// Any word (a path, a name, a secret, one of a few choices).
    case text
    /// A whole number (its range is the option's check).
    case integer
    /// `true`/`yes` or `false`/`no`.
    case flag
    /// A TCP port; `orNone`: or `none`, for no listener at all.
    case port(orNone: Bool)
}

extension ActorKind {
    /// The first option name (in sorted order) this kind does not declare; nil when all are known. A typo in an
    /// option must not start an actor that silently ignores it.
    public func unknownOptionName(among names: some Sequence<String>) -> String? {
        names.sorted().first { name in !options.contains { $0.name == name } }
    }

    /// Why `name` is refused, with the nearest declared option as a hint.
    public func unknownOptionMessage(_ name: String) -> String {
        let known = options.map(\.name)
        let list = known.isEmpty ? "it takes no options" : "expected one of \(known.joined(separator: ", "))"
        return "\(self.name) has no option '\(name)'\(didYouMean(name, among: known)); \(list)"
    }

    /// The options it cannot start without.
    public var requiredOptions: [String] { options.filter(\.required).map(\.name) }

    /// Why `names` are not enough to start it: the first required option missing, with what it means; nil when none is.
    public func missingOptionMessage(among names: some Sequence<String>) -> String? {
        let given = Set(names)
        guard let missing = options.first(where: { $0.required && !given.contains($0.name) }) else { return nil }
        return "\(name) needs \(missing.name)=…: \(missing.meaning)"
    }

    /// Why the options' values are refused: the first option (in sorted order) whose value its declaration refuses.
    public func valueProblem(in options: [String: String]) -> (option: String, message: String)? {
        for (name, value) in options.sorted(by: { $0.key < $1.key }) {
            if let option = self.options.first(where: { $0.name == name }), let problem = option.problem(value) {
                return (name, "\(self.name): \(problem)")
            }
        }
        return nil
    }
}

/// A started actor.
public protocol RunningActor: Sendable {
    /// URLs a real client can use as-is, labelled (`http`, `ipps`…).
    var endpoints: [(label: String, url: String)] { get }
    /// Lines worth showing next to the endpoints (demo credentials, tokens), e.g. `bearer-token abc`.
    var notes: [String] { get }
    /// The requests it answers, as the request log names them (`Print-Job`, `GET /sign`): what a request it could not
    /// handle is compared with, for the nearest (`show misses`). Those it answered in the journal count too.
    var requests: [String] { get }
    /// Stops listening and releases what it holds.
    func stop() async throws
    /// Stops at once, as its process dying would (`crash NAME`): no more work, no timer, nothing flushed or written
    /// after it. The world then resets its node's connections, closes its ports and crashes its disk.
    func crash() async throws
    /// Whether what it told its clients survives a crash of its node: its stores are on the node's disk and synced
    /// before it answers. The swarm crashes only such actors (one that keeps its state in memory loses it by design,
    /// and a workload could not tell that from a bug).
    var survivesCrash: Bool { get }
}

extension RunningActor {
    public var notes: [String] { [] }
    public var requests: [String] { [] }
    /// By default its ``stop()``: right for an actor whose stop writes nothing (its stores commit every change as it
    /// happens under simulation); an actor whose stop flushes or says goodbye stops without that.
    public func crash() async throws { try await stop() }
    public var survivesCrash: Bool { false }
}
