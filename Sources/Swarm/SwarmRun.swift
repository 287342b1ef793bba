import Scenario
import Wire

/// One scenario under one seed, as a swarm reports it.
public struct SwarmRun: Codable, Equatable, Sendable {
    public let file: String
    public let seed: UInt64
    public let passed: Bool
    public let digest: String
    /// What failed first: a broken invariant, else a failed expectation, else the step that could not run.
    public let failure: String?
    public let faults: [ScheduledFault]
    public let virtualNanoseconds: Int64
    public let traceEvents: Int
    /// The failure's ``FailureSignature/identity`` (nil if it passed; absent from results written before it existed).
    public let signature: String?
    /// The reach points it reached, sorted.
    public let reached: [String]
    /// With `--explore`, what made it a mutant (nil for a fresh seed's run).
    public let mutant: Mutant?
    /// A planned run's ``Behaviour``s with the statement each first appeared in, which guided exploration steers by;
    /// nil once the exploration is over (see ``withoutBehaviours``) and for plain swarm runs, so results stay small.
    public let behaviours: [String: Int]?
    /// A planned run's traffic (what each direction of its links sent), where its mutants' cuts near a target aim; nil
    /// as ``behaviours`` is.
    let traffic: LinkTraffic?

    /// A mutant's number, its parent, the point it was made for and its edits (its faults are ``faults``).
    public struct Mutant: Codable, Equatable, Sendable {
        public let number: Int
        public let parent: String
        public let target: String?
        public let edits: [String]

        /// `made from seed 4 for mig.retry-after-lost-answer: drop …; add …`.
        public var origin: String {
            "made from \(parent)" + (target.map { " for \($0)" } ?? "") + ": " + edits.joined(separator: "; ")
        }
    }

    /// `seed 12`, or `seed 12 mutant 7` for a mutant made under seed 12.
    public var name: String { "seed \(seed)" + (mutant.map { " mutant \($0.number)" } ?? "") }

    /// - parameter behaviours: whether to keep the run's behaviours (a planned run of an exploration).
    public init(_ result: ScenarioRunner.Result, mutation: SwarmMutation? = nil, behaviours: Bool = false) {
        self.init(result, mutation: mutation, behaviours: behaviours, traffic: nil)
    }

    /// A planned run of an exploration, with its behaviours and `traffic`.
    init(_ result: ScenarioRunner.Result, mutation: SwarmMutation?, behaviours: Bool, traffic: LinkTraffic?) {
        file = result.file
        seed = result.seed
        passed = result.passed
        digest = result.digest
        if let violation = result.violations.first {
            failure = violation.summary(file: result.file)
        } else if let expectation = result.failures.first {
            failure = "\(expectation.file):\(expectation.line): FAILED \(expectation.text): \(expectation.failure ?? "")"
        } else {
            failure = result.error
        }
        faults = result.faults
        virtualNanoseconds = result.virtualTime.nanosecondsValue
        traceEvents = result.traceEvents
        signature = FailureSignature(result)?.identity
        reached = result.reached
        mutant = mutation.map { Mutant(number: $0.number, parent: $0.parent, target: $0.target, edits: $0.edits) }
        self.behaviours = behaviours ? result.behaviours : nil
        self.traffic = traffic
    }

    /// This run without its behaviours and traffic: what a finished exploration reports.
    public var withoutBehaviours: SwarmRun {
        SwarmRun(
            file: file, seed: seed, passed: passed, digest: digest, failure: failure, faults: faults, virtualNanoseconds: virtualNanoseconds,
            traceEvents: traceEvents, signature: signature, reached: reached, mutant: mutant, behaviours: nil, traffic: nil)
    }

    private init(
        file: String, seed: UInt64, passed: Bool, digest: String, failure: String?, faults: [ScheduledFault], virtualNanoseconds: Int64,
        traceEvents: Int, signature: String?, reached: [String], mutant: Mutant?, behaviours: [String: Int]?, traffic: LinkTraffic?
    ) {
        self.file = file
        self.seed = seed
        self.passed = passed
        self.digest = digest
        self.failure = failure
        self.faults = faults
        self.virtualNanoseconds = virtualNanoseconds
        self.traceEvents = traceEvents
        self.signature = signature
        self.reached = reached
        self.mutant = mutant
        self.behaviours = behaviours
        self.traffic = traffic
    }

    /// What failed and the commands that replay and shrink it (under `faults`, the swarm's fault class). The swarm
    /// options the faults were drawn within are the same for every seed of a swarm: it prints them once. A mutant
    /// replays from its schedule file (``SwarmSchedule/fileName(of:)``), which the swarm writes.
    public func failureLine(faults classes: FaultClass, mix: SwarmMix.Mode = .fixed) -> String {
        if let mutant {
            let schedule = SwarmSchedule.fileName(of: self)
            return "FAIL \(file) \(name) (\(faults.count) fault\(faults.count == 1 ? "" : "s"); \(mutant.origin)): \(failure ?? "failed")\n"
                + "    replay: workbench swarm \(file) --schedule \(schedule)\n"
                + "    shrink: workbench shrink \(file) --schedule \(schedule) --out \(schedule.dropLast(5)).scn"
        }
        // A drawn mix is the seed's own: printed with it, and named in the commands that draw it again.
        let drawn = mix == .drawn ? " --mix drawn" : ""
        return "FAIL \(file) seed \(seed) (\(faults.count) fault\(faults.count == 1 ? "" : "s")): \(failure ?? "failed")\n"
            + (mix == .drawn ? "    mix: \(SwarmMix.drawn(seed: seed))\n" : "")
            + "    replay: workbench swarm \(file) --seeds \(seed) --faults \(classes.rawValue)\(drawn)\n"
            + "    shrink: workbench shrink \(file) --seed \(seed) --faults \(classes.rawValue)\(drawn) --out \(file.split(separator: "/").last.map { String($0.dropLast(4)) } ?? "swarm")-seed-\(seed).scn"
    }
}
