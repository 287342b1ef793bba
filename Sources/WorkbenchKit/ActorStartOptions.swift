/// The options of one actor kind as a typed value — `MigOptions(ppm: 120)` for `start mig ppm=120` — one struct a
/// kind, generated from the options the systems declare (`ActorOptions+Catalog.swift`): a misspelt option does not
/// compile, and each property's doc comment says what the option means and its default. A number is an `Int`, a flag
/// a `Bool`, a port an `Int` (or a ``ListenerPort`` when it may be `none`), anything else the line's word; the values
/// are checked and refused in the same words as the line's (`ppm: 0` as `start mig ppm=0`).
public protocol ActorStartOptions: Sendable {
    /// The actor kind the options are for.
    static var kind: String { get }
    /// The options given, as the line's `OPTION=VALUE` words.
    var words: [String: String] { get }
}

extension Simulation {
    /// Starts an actor of the kind `options` are for, with those options, as ``start(_:as:on:options:)`` does.
    ///
    /// - parameters:
    ///   - options: the kind's options (`MigOptions(ppm: 120)`); an option left nil keeps its default.
    ///   - name: what later calls and lines call it (default: the kind).
    ///   - host: the node it runs on (default: the kind's own).
    /// - returns: the running actor: its name, node and URLs.
    /// - throws: ``SimulationError`` for a value the option refuses (the message the line `start KIND OPTION=VALUE`
    ///   gives), a name already started, or an actor that does not start.
    @discardableResult
    public func start<Options: ActorStartOptions>(
        _ options: Options, as name: String? = nil, on host: String? = nil
    ) throws(SimulationError)
        -> StartedActor
    {
        try start(Options.kind, as: name, on: host, options: options.words)
    }
}

/// A port option that may also be `none`, for no listener at all (`MigOptions(tlsPort: .off, plainPort: 6310)`).
public enum ListenerPort: Sendable, Equatable, ExpressibleByIntegerLiteral {
    /// Listen on this port (0: a free port the system chooses).
    case port(Int)
    /// No listener (`none` on the line).
    case off

    /// `plainPort: 6310` for `.port(6310)`.
    public init(integerLiteral value: Int) { self = .port(value) }

    /// The line's word: the number, or `none`.
    public var word: String {
        switch self {
        case .port(let number): String(number)
        case .off: "none"
        }
    }
}
