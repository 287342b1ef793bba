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

    public init(_ result: ScenarioRunner.Result) {
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
    }

    /// What failed, the commands that replay and shrink it, and the options the seed's faults were drawn within.
    public func failureLine(options: SwarmOptions) -> String {
        let classes = options.faults.rawValue
        return "FAIL \(file) seed \(seed) (\(faults.count) fault\(faults.count == 1 ? "" : "s")): \(failure ?? "failed")\n"
            + "    replay: workbench swarm \(file) --seeds \(seed) --faults \(classes)\n"
            + "    shrink: workbench shrink \(file) --seed \(seed) --faults \(classes) --out \(file.split(separator: "/").last.map { String($0.dropLast(4)) } ?? "swarm")-seed-\(seed).scn\n"
            + "    swarm options: \(options)"
    }
}
