/// One word of the scenario language: its syntax, its help, and how a line becomes a ``Step``.
public struct Directive: Sendable {
    /// The first word of the line.
    public let name: String
    /// The syntax, e.g. `advance DURATION`.
    public let usage: String
    /// One line of help.
    public let summary: String
    /// What it takes when a line leaves a word out (`help WORD` shows it), e.g. `from phone, within 30s, as http`; empty
    /// when it leaves nothing to a default.
    public let defaults: String
    /// Words that may follow it (for tab completion).
    public let keywords: [String]
    /// Whether its lines run on the live wire (`workbench run --live`, `workbench attach`), and if not, why.
    public let live: LiveSupport
    /// Turns the rest of the line into a step, or reports precisely what is wrong with it.
    public let parse: @Sendable (inout Arguments) throws(ScenarioError) -> any Step

    public init(
        _ name: String, usage: String, summary: String, defaults: String = "", keywords: [String] = [], live: LiveSupport = .ownClients,
        parse: @escaping @Sendable (inout Arguments) throws(ScenarioError) -> any Step
    ) {
        self.name = name
        self.usage = usage
        self.summary = summary
        self.defaults = defaults
        self.keywords = keywords
        self.live = live
        self.parse = parse
    }
}

/// Whether a directive's lines run on the live wire as they run in a simulated world.
public enum LiveSupport: Sendable, Equatable {
    /// They do, everywhere: the step acts only through the context's ``World``.
    case runs
    /// They drive the workbench's own clients or actors: they run wherever those run, in a simulated world and in
    /// `workbench run --live` (which serves the scenario's actors itself), and are refused in a session attached to a
    /// running serve, whose clients are the user's own (``LiveSupport/attachedRefusal``).
    case ownClients
    /// They are refused on the live wire when read, for this reason (which says what to use instead).
    case refused(String)

    /// Why a session attached to a running serve refuses the lines of the workbench's own clients.
    public static let attachedRefusal =
        "it drives the workbench's own clients; on a running serve the clients are yours "
        + "(ipptool, curl, ssh, the app): steer the world with fault, link, partition, clock and advance, and check it with expect "
        + "trace (workbench run --live runs a whole scenario, clients and all, on real sockets)"

    /// Why it does not run in `mode`, or nil when it does.
    public func refusal(in mode: LiveMode) -> String? {
        switch (self, mode) {
        case (.runs, _), (.ownClients, .run): return nil
        case (.ownClients, .attached): return Self.attachedRefusal
        case (.refused(let why), _): return why
        }
    }
}

/// The two ways lines run on the live wire.
public enum LiveMode: Sendable {
    /// `workbench run --live`: the scenario serves its own actors on loopback and its own clients talk to them.
    case run
    /// A session attached to a running `workbench serve` (`workbench attach`, `serve --script`).
    case attached
}

/// What a directive does when its line runs.
public protocol Step: Sendable {
    /// Runs the step. Steps that wait for the simulated world return ``Pending`` work the runner drives
    /// (or, under `spawn`, leaves running in the background).
    func run(_ context: ScenarioContext) throws -> Pending?
}

/// Work in progress in the simulated world, and what to do with its outcome.
public struct Pending: Sendable {
    /// Names the values it produces, e.g. `r` for `${r.status}`.
    public let label: String
    public let timeout: Duration
    /// The line that started it, when it runs in the background (`spawn`): `join` publishes its results as that line's.
    var origin: (line: Int, text: String)?
    /// What that line declared it binds (checked against what the work publishes).
    var declared: ResultBinding?
    let wait: @Sendable (ScenarioContext, Duration) throws -> [String: String]

    /// - parameters:
    ///   - wait: drives the kernel until the work (already started) ends, at most the given time; returns
    ///     the values to publish under `label`.
    public init(label: String, timeout: Duration, wait: @escaping @Sendable (ScenarioContext, Duration) throws -> [String: String]) {
        self.label = label
        self.timeout = timeout
        self.wait = wait
    }
}
