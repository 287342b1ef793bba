import ArgumentParser
import Foundation
import Swarm

/// A swarm's seeds split among worker processes: this executable again, as `swarm run … --jobs 1 --worker K/J`,
/// each writing its runs as JSON, read back and put in order here.
struct SwarmWorkers {
    let files: [String]
    /// The command line's `--seeds`, `--faults`, `--mix` and `--shard`, passed on to every worker unchanged.
    let seeds: String
    let options: SwarmOptions
    let shard: String?

    /// Runs `count` workers to completion and returns their runs, in the order one process would have made them.
    func run(count: Int) throws -> [SwarmRun] {
        let parts = try spawn(count: count, extra: shard.map { ["--shard", $0] } ?? [])
        return SwarmResult.ordered(parts.flatMap { $0 }, files: files)
    }

    /// Starts `count` workers (`--worker K/count`, plus `extra`), waits for all, and returns each one's runs.
    private func spawn(count: Int, extra: [String]) throws -> [[SwarmRun]] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("workbench-swarm-\(ProcessInfo.processInfo.processIdentifier)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var processes: [(Process, String)] = []
        for index in 0..<count {
            let part = directory.appendingPathComponent("part-\(index).json").path
            let process = Process()
            process.executableURL = executable
            process.arguments =
                ["swarm", "run"] + files + [
                    "--seeds", seeds, "--faults", options.faults.rawValue, "--mix", options.mix.rawValue, "--jobs", "1",
                    "--worker", "\(index)/\(count)", "--json", part,
                ]
                + extra
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            processes.append((process, part))
        }
        var parts: [[SwarmRun]] = []
        for (process, part) in processes {
            process.waitUntilExit()
            guard process.terminationStatus == 0, let text = try? String(contentsOfFile: part, encoding: .utf8) else {
                throw ValidationError("a swarm worker process failed (exit status \(process.terminationStatus)); run with --jobs 1 to see why")
            }
            parts.append(try commandLine { try SwarmResult.decode(text, source: part).runs })
        }
        return parts
    }
}
