import ArgumentParser
import Foundation
import Scenario
import Swarm
import Synchronization
import SystemKit

/// The worker processes of one `--explore`: this executable again, as `swarm run FILES --jobs 1 --plan-stream`, started
/// once and kept for every batch. The parent hands each worker one planned run at a time (a JSON line on its stdin)
/// and reads the run back (a JSON line on its stdout), so a batch costs no process start and a worker that finishes
/// early takes the next run instead of waiting for its share. The runs come back in the plan's order, so the result
/// does not depend on which worker ran what.
final class SwarmWorkerPool {
    /// A result line starts with this, so that anything else a run might print on stdout is skipped, never parsed.
    static let marker = "swarm-run "

    private let workers: [Worker]

    /// Starts `count` workers on `files` with the swarm's fault class and mix.
    init(files: [String], options: SwarmOptions, count: Int) throws {
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        let arguments = ["--faults", options.faults.rawValue, "--mix", options.mix.rawValue, "--jobs", "1", "--plan-stream"]
        workers = try (0..<count).map { _ in try Worker(executable: executable, arguments: ["swarm", "run"] + files + arguments) }
    }

    deinit {
        for worker in workers { worker.stop() }
    }

    /// Runs every entry of `plan` on the workers and returns the runs in the plan's order.
    func run(_ plan: [SwarmPlanEntry]) throws -> [SwarmRun] {
        let lines = try plan.map { entry in
            // Encoding plain values cannot fail; a failure here would be a bug worth seeing.
            String(decoding: try JSONEncoder().encode(entry), as: UTF8.self)
        }
        let workers = self.workers
        let state = Mutex<(next: Int, runs: [SwarmRun?], failure: String?)>((0, Array(repeating: nil, count: plan.count), nil))
        DispatchQueue.concurrentPerform(iterations: min(workers.count, plan.count)) { index in
            let worker = workers[index]
            while true {
                let position = state.withLock { state -> Int? in
                    guard state.failure == nil, state.next < lines.count else { return nil }
                    defer { state.next += 1 }
                    return state.next
                }
                guard let position else { return }
                do {
                    let run = try worker.run(lines[position])
                    state.withLock { $0.runs[position] = run }
                } catch {
                    state.withLock { $0.failure = $0.failure ?? "\(error)" }
                    return
                }
            }
        }
        let (_, runs, failure) = state.withLock { $0 }
        if let failure { throw ValidationError("a swarm worker process failed: \(failure); run with --jobs 1 to see why") }
        return runs.map { $0! }
    }

    /// The worker side: reads planned runs from stdin until it closes, and answers each with its run.
    static func serve(_ swarm: SwarmRunner, scripts: [Script]) throws {
        let decoder = JSONDecoder()
        let encoder = JSONEncoder()
        while let line = readLine() {
            let entry: SwarmPlanEntry
            do {
                entry = try decoder.decode(SwarmPlanEntry.self, from: Data(line.utf8))
            } catch {
                throw ExitStatus.inputWrong("--plan-stream: not a planned run (written by `workbench swarm --explore` for its workers): \(error)")
            }
            guard let script = scripts.first(where: { $0.file == entry.file }) else {
                throw ExitStatus.inputWrong("--plan-stream: the planned run's file \(entry.file) is not one of this worker's files")
            }
            let run = swarm.run(entry, script: script)
            try FileHandle.standardOutput.write(contentsOf: Data(marker.utf8) + (try encoder.encode(run)) + Data("\n".utf8))
        }
    }

    /// One worker process and its two pipes; used by one thread at a time.
    private final class Worker: @unchecked Sendable {
        private let process = Process()
        private let input = Pipe()
        private let output = Pipe()
        private var buffered = Data()

        init(executable: URL, arguments: [String]) throws {
            process.executableURL = executable
            process.arguments = arguments
            process.standardInput = input
            process.standardOutput = output
            try process.run()
        }

        /// Sends one planned run and waits for its run.
        func run(_ line: String) throws -> SwarmRun {
            try input.fileHandleForWriting.write(contentsOf: Data((line + "\n").utf8))
            while true {
                let answer = try nextLine()
                guard answer.hasPrefix(SwarmWorkerPool.marker) else { continue }
                return try JSONDecoder().decode(SwarmRun.self, from: Data(answer.utf8.dropFirst(SwarmWorkerPool.marker.utf8.count)))
            }
        }

        private func nextLine() throws -> String {
            while true {
                if let end = buffered.firstIndex(of: UInt8(ascii: "\n")) {
                    let line = String(decoding: buffered[buffered.startIndex..<end], as: UTF8.self)
                    buffered.removeSubrange(buffered.startIndex...end)
                    return line
                }
                let chunk = output.fileHandleForReading.availableData
                guard !chunk.isEmpty else {
                    process.waitUntilExit()
                    throw ValidationError("it ended (exit status \(process.terminationStatus)) before answering")
                }
                buffered += chunk
            }
        }

        /// Closes its stdin (the worker then ends) and waits for it.
        func stop() {
            try? input.fileHandleForWriting.close()
            process.waitUntilExit()
        }
    }
}
