import Foundation
import Scenario

/// A run's faults written out, for a run that no seed alone gives back (a mutant of `--explore`): the workload, the
/// seed, the faults it ran before which statements, and the digest it reached. `workbench swarm FILE --schedule F`
/// replays it exactly and `workbench shrink FILE --schedule F` shrinks it, as a seed is replayed and shrunk.
public struct SwarmSchedule: Codable, Sendable, Equatable {
    /// The workload's file name (without its folder).
    public let file: String
    public let seed: UInt64
    /// The class the faults were drawn within (its options are printed with the failure).
    public let faultClass: FaultClass
    public let faults: [ScheduledFault]
    public let mutant: SwarmRun.Mutant?
    /// The run's digest: a replay that reaches another one ran other code or another file (a debug and a release build
    /// of the same code reach the same one).
    public let digest: String

    enum CodingKeys: String, CodingKey {
        case file, seed, faults, mutant, digest
        case faultClass = "fault_class"
    }

    public init(_ run: SwarmRun, faultClass: FaultClass) {
        file = run.file.split(separator: "/").last.map(String.init) ?? run.file
        seed = run.seed
        self.faultClass = faultClass
        faults = run.faults
        mutant = run.mutant
        digest = run.digest
    }

    /// `ecosystem-swarm-seed-12-mutant-7.json`: where a swarm writes a failing mutant's schedule.
    public static func fileName(of run: SwarmRun) -> String {
        let base = run.file.split(separator: "/").last.map(String.init) ?? run.file
        let stem = base.hasSuffix(".scn") ? String(base.dropLast(4)) : base
        return "\(stem)-seed-\(run.seed)" + (run.mutant.map { "-mutant-\($0.number)" } ?? "") + ".json"
    }

    /// - throws: ``SwarmError`` (`.resultFile`) naming `path` if it cannot be read or is no schedule, (`.argument`) if
    ///   it was written for another file than `script`'s.
    public static func read(_ path: String, for script: String) throws -> SwarmSchedule {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw SwarmError(.resultFile, "--schedule \(path): no such file (a failing mutant's schedule, written by `workbench swarm --explore`)")
        }
        let schedule: SwarmSchedule
        do {
            schedule = try JSONDecoder().decode(SwarmSchedule.self, from: data)
        } catch {
            throw SwarmError(.resultFile, "--schedule \(path): not a run's schedule (written by `workbench swarm --explore`): \(error)")
        }
        let base = script.split(separator: "/").last.map(String.init) ?? script
        guard schedule.file == base else {
            throw SwarmError(.argument, "--schedule \(path): the schedule is of \(schedule.file), not of \(base)")
        }
        return schedule
    }

    public var jsonText: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted]
        // Encoding plain strings and numbers cannot fail.
        return (try? encoder.encode(self)).flatMap { String(data: $0, encoding: .utf8) } ?? "{}"
    }
}
