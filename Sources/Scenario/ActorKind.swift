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
    /// Options it understands (`name=value` after `start`), with their meaning.
    public let options: [(name: String, meaning: String)]
    /// Starts one instance on `node` with the given options.
    public let start: @Sendable (_ node: Node, _ options: [String: String]) async throws -> any RunningActor

    public init(name: String, summary: String, defaultHost: String, options: [(name: String, meaning: String)] = [],
                start: @escaping @Sendable (_ node: Node, _ options: [String: String]) async throws -> any RunningActor) {
        self.name = name
        self.summary = summary
        self.defaultHost = defaultHost
        self.options = options
        self.start = start
    }
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
        let nearest = known.min { editDistance($0, name) < editDistance($1, name) }
        let hint = nearest.map { editDistance($0, name) <= 2 ? " (did you mean '\($0)'?)" : "" } ?? ""
        let list = known.isEmpty ? "it takes no options" : "expected one of \(known.joined(separator: ", "))"
        return "\(self.name) has no option '\(name)'\(hint); \(list)"
    }
}

/// A started actor.
public protocol RunningActor: Sendable {
    /// URLs a real client can use as-is, labelled (`http`, `ipps`…).
    var endpoints: [(label: String, url: String)] { get }
    /// Lines worth showing next to the endpoints (demo credentials, tokens), e.g. `bearer-token abc`.
    var notes: [String] { get }
    /// Stops listening and releases what it holds.
    func stop() async throws
}

extension RunningActor {
    public var notes: [String] { [] }
}
