import Kernel
import Scenario
import Synchronization

/// The links a workload's statements open connections on, learnt from one run of it without faults: with it a swarm
/// can fault a link before the statement that first uses it, not only once a connection has used it. Without it the
/// first connection on every link (the print on phone<->proxy, the session on phone<->ims) could never be cut by a
/// link fault, since no link was a site before that connection opened.
///
/// The run without faults stands for every seed's: the statements are the same, so the links they reach for are too;
/// a faulted run that reaches for others (a retry on another path) still has them as sites once it used them.
struct LinkForecast: Sendable {
    /// Each link, as `A<->B` with A < B, and the statement (0-based) whose step first opened a connection on it.
    let firstUse: [String: Int]

    static let none = LinkForecast(firstUse: [:])

    init(firstUse: [String: Int]) { self.firstUse = firstUse }

    /// The links `result` connected on, each with the statement it first did so in.
    init(_ result: ScenarioRunner.Result) {
        firstUse = result.firstSeen { event in
            // The network records `connect` with the caller's host and the `host:port` it reached for.
            guard event.actor == "net", event.event == "connect", let from = event["from"], let to = event["to"] else { return nil }
            let host = String(to[..<(to.lastIndex(of: ":") ?? to.endIndex)])
            return Self.name(from, host)
        }
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

/// The link forecasts of the workloads one swarm has run, by file, each made by one run without faults the first time
/// the workload runs (in every worker alike: the run is the same everywhere, so are the draws).
final class LinkForecasts: Sendable {
    private let byFile = Mutex<[String: LinkForecast]>([:])

    func forecast(_ script: Script, runner: ScenarioRunner, options: SwarmOptions) -> LinkForecast {
        guard options.faults.network else { return .none }
        if let known = byFile.withLock({ $0[script.file] }) { return known }
        // Seed 1: any seed would do, the forecast holds the statements' links, not the run's timing.
        let forecast = LinkForecast(runner.run(script, seed: 1) { _ in })
        byFile.withLock { $0[script.file] = forecast }
        return forecast
    }
}
