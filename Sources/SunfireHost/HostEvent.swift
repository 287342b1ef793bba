/// Something the host did that belongs in the trace (a conversion, a queue change, a printed job…).
public struct HostEvent: Sendable, Equatable {
    public let name: String
    public let fields: [Field]

    public struct Field: Sendable, Equatable {
        public let key: String
        public let value: String
    }

    public init(_ name: String, _ fields: [(String, String)] = []) {
        self.name = name
        self.fields = fields.map { Field(key: $0.0, value: $0.1) }
    }

    /// The fields as pairs, for `Node.trace`.
    public var pairs: [(String, String)] { fields.map { ($0.key, $0.value) } }
}

/// What one command did: its output split as a real process splits it, how long it took, what happened.
public struct CommandOutcome: Sendable {
    public var stdout: [UInt8] = []
    public var stderr: [UInt8] = []
    public var exitStatus: Int32 = 0
    /// How long the command takes on the host's clock (the converters' "This could take a while...").
    public var duration: Duration = .zero
    public var events: [HostEvent] = []

    public init() {}

    mutating func out(_ text: String) { stdout += Array(text.utf8) }
    mutating func err(_ text: String) { stderr += Array(text.utf8) }
}

/// How long the host's commands take (virtual time under simulation), so the app's slow steps are timed.
public struct HostTiming: Sendable, Equatable {
    public var command: Duration = .milliseconds(5)
    public var javaStartup: Duration = .milliseconds(800)
    public var docsToPDFPerPage: Duration = .milliseconds(300)
    public var ghostscriptPerPage: Duration = .milliseconds(40)
    public var nupPerPage: Duration = .milliseconds(25)
    public var imposePerPage: Duration = .milliseconds(50)
    public var pdftopsPerPage: Duration = .milliseconds(60)
    public var md5PerMiB: Duration = .milliseconds(4)
    /// How much slower converters run while the `sunfire.slow-converter` fault point fires.
    public var slowConverterFactor = 10

    public init() {}
}
