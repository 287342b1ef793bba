import Kernel
import Scenario
import Synchronization
import Wire

/// The links a workload's statements open connections on, and the messages they send, learnt from one run of it
/// without faults: with it a swarm can fault a link before the statement that first uses it, not only once a
/// connection has used it, and guided exploration can aim a cut at a message. Without it the first connection on
/// every link (the print on phone<->proxy, the session on phone<->ims) could never be cut by a link fault, since no
/// link was a site before that connection opened.
///
/// The run without faults stands for every seed's: the statements are the same, so the links they reach for are too;
/// a faulted run that reaches for others (a retry on another path) still has them as sites once it used them.
struct LinkForecast: Sendable {
    /// Each link, as `A<->B` with A < B, and the statement (0-based) whose step first opened a connection on it.
    let firstUse: [String: Int]
    /// Each direction's traffic: the runs of bytes its host sent, in order, each with the statement (0-based) it was
    /// sent in. The run without faults stands for a mutant's until the mutant's first fault changes what is said:
    /// guided exploration aims its cuts at these messages (``cut(from:to:within:random:)``).
    let sent: [Direction: [Sent]]

    /// One way of a link: what `from` sends `to`.
    struct Direction: Hashable, Comparable, Codable, Sendable {
        let from: String
        let to: String

        static func < (lhs: Self, rhs: Self) -> Bool { (lhs.from, lhs.to) < (rhs.from, rhs.to) }
    }

    /// One run of bytes sent: a message, or a part of one as large as the sender wrote at once.
    struct Sent: Codable, Sendable, Equatable {
        let statement: Int
        let bytes: Int
    }

    static let none = LinkForecast(firstUse: [:], sent: [:])

    init(firstUse: [String: Int], sent: [Direction: [Sent]] = [:]) {
        self.firstUse = firstUse
        self.sent = sent
    }

    /// The links `result` connected on, each with the statement it first did so in, and what `traffic` (recorded
    /// beside that run's trace) says each direction sent.
    init(_ result: ScenarioRunner.Result, traffic: [TrafficRecorder.Record] = []) {
        firstUse = result.firstSeen { event in
            // The network records `connect` with the caller's host and the `host:port` it reached for.
            guard event.actor == "net", event.event == "connect", let from = event["from"], let to = event["to"] else { return nil }
            let host = String(to[..<(to.lastIndex(of: ":") ?? to.endIndex)])
            return Self.name(from, host)
        }
        sent = LinkTraffic(result, records: traffic).sent
    }

    /// A forecast whose messages are those one run really sent (`traffic`): for a mutant of that run, exact until the
    /// mutant's first changed fault changes what is said.
    init(_ traffic: LinkTraffic) {
        firstUse = [:]
        sent = traffic.sent
    }

    /// The directions, as (from, to), that sent bytes during one of the statements of `window`, sorted.
    func directions(sendingIn window: ClosedRange<Int>) -> [(String, String)] {
        sent.keys.sorted().filter { direction in sent[direction]?.contains { window.contains($0.statement) } == true }
            .map { ($0.from, $0.to) }
    }

    /// Where to arm `reset FROM -> TO after N bytes` to cut one of the runs of bytes the direction sent during
    /// `window`, each run as likely whatever its size (a 300-byte answer as much as a 16 KB record of an upload): just
    /// before the statement that sent it, N counted from there. Half the time N is its last byte (it arrives whole and
    /// the connection resets before anything follows: a request that went out whole, its answer lost), else one of its
    /// bytes (it arrives cut). `message` is its number among the runs the direction sent in that statement. Nil when
    /// the direction sent nothing there. A count drawn as a seed draws it (octave by octave up to 300,000 bytes) falls
    /// in a 300-byte answer 3,700 bytes on once in about 130 draws, and on one given byte 22,057 bytes on once in about
    /// 300,000.
    func cut(from: String, to: String, within window: ClosedRange<Int>, random: RandomStream) -> (armed: Int, bytes: Int, message: Int)? {
        let runs = sent[Direction(from: from, to: to)] ?? []
        let candidates = runs.indices.filter { window.contains(runs[$0].statement) }
        guard !candidates.isEmpty else { return nil }
        let chosen = candidates[random.int(in: 0...(candidates.count - 1))]
        let armed = runs[chosen].statement
        let earlier = runs[..<chosen].filter { $0.statement == armed }
        let size = runs[chosen].bytes
        let within = random.int(in: 0...1) == 0 ? size : random.int(in: 1...size)
        return (armed, earlier.reduce(0) { $0 + $1.bytes } + within, earlier.count + 1)
    }

    static func name(_ a: String, _ b: String) -> String { a < b ? "\(a)<->\(b)" : "\(b)<->\(a)" }

    /// The links a schedule may fault just before statement `index`: the ones connections have used so far, and the
    /// ones the workload's statements up to `index` use, each as (A, B) with A < B, sorted.
    func links(before index: Int, used: [(String, String)]) -> [(String, String)] {
        var names = Set(used.map { Self.name($0.0, $0.1) })
        var links = used
        for (name, statement) in firstUse where statement <= index && names.insert(name).inserted {
            let ends = name.split(separator: "<->", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            links.append((ends[0], ends[1]))
        }
        return links.sorted { ($0.0, $0.1) < ($1.0, $1.1) }
    }
}

/// What each direction of one run's links sent, each run of bytes with the statement it was sent in: an exploration's
/// runs keep theirs, so a mutant's cut near its target aims at the messages its parent really sent (a retry's answer
/// the run without faults never sent).
struct LinkTraffic: Codable, Equatable, Sendable {
    let sent: [LinkForecast.Direction: [LinkForecast.Sent]]

    /// What `records` (recorded beside `result`'s trace) say each direction sent, each run of bytes in its statement.
    init(_ result: ScenarioRunner.Result, records: [TrafficRecorder.Record]) {
        var sent: [LinkForecast.Direction: [LinkForecast.Sent]] = [:]
        for (record, statement) in zip(records, result.statements(at: records.map(\.position))) {
            sent[LinkForecast.Direction(from: record.from, to: record.to), default: []].append(
                LinkForecast.Sent(statement: statement, bytes: record.bytes))
        }
        self.sent = sent
    }
}

/// The link forecasts of the workloads one swarm has run, by file, each made by one run without faults the first time
/// the workload runs (in every worker alike: the run is the same everywhere, so are the draws).
final class LinkForecasts: Sendable {
    private let byFile = Mutex<[String: LinkForecast]>([:])

    func forecast(_ script: Script, runner: ScenarioRunner, options: SwarmOptions) -> LinkForecast {
        guard options.faults.network else { return .none }
        if let known = byFile.withLock({ $0[script.file] }) { return known }
        // Seed 1: any seed would do, the forecast holds the statements' links and messages, not the run's timing.
        let recorder = TrafficRecorder()
        let forecast = LinkForecast(runner.run(script, seed: 1, faults: .drawn(recorder)) { _ in }, traffic: recorder.records)
        byFile.withLock { $0[script.file] = forecast }
        return forecast
    }
}

/// A fault schedule that records, from the first statement on, every run of bytes the network sends (with the trace's
/// length at that moment, which places it in its statement), and runs the faults of the schedule it wraps (none for a
/// forecast, which learns the messages of a run without faults; an exploration's run keeps its own).
final class TrafficRecorder: FaultScheduler {
    struct Record: Sendable {
        let position: Int
        let from: String
        let to: String
        let bytes: Int
    }

    private let recorded = Mutex<[Record]>([])
    private let schedule: (any FaultScheduler)?

    init(recording schedule: (any FaultScheduler)? = nil) { self.schedule = schedule }

    var records: [Record] { recorded.withLock { $0 } }

    func faults(before index: Int, in context: ScenarioContext) -> [ScheduledFault] {
        if index == 0 {
            let trace = context.kernel.trace
            context.kernel.network.onData = { [self] from, to, bytes in
                let position = trace.count
                recorded.withLock { $0.append(Record(position: position, from: from, to: to, bytes: bytes)) }
            }
        }
        return schedule?.faults(before: index, in: context) ?? []
    }
}
