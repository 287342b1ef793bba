import ArgumentParser
import FlameGraph
import Foundation

/// `--flamegraph FILE.svg`, declared once for the benches that can profile one figure.
package struct FlameGraphOption: ParsableArguments {
    @Option(
        help: ArgumentHelp(
            "Profile the figure chosen with --only: run it again under `perf record -g` and write its flame graph to FILE.svg "
                + "(self-contained SVG; needs Debian's linux-perf).",
            valueName: "FILE.svg"))
    package var flamegraph: String?

    package init() {}

    /// How perf walks the stacks.
    package enum CallGraph: String, ExpressibleByArgument, CaseIterable {
        /// `perf record -g`: frame pointers; cheap, but code built without them (Debian's libcrypto) loses its callers.
        case fp
        /// `perf record --call-graph dwarf`: unwinds through every library from its unwind tables; larger recordings.
        case dwarf
    }

    @Option(
        help: ArgumentHelp(
            "How --flamegraph's perf walks the stacks: fp (perf record -g, frame pointers; Debian's libcrypto has none, so "
                + "its frames lose their callers) or dwarf (unwinds through every library; bigger recordings, slower folding)."))
    package var callGraph: CallGraph = .fp

    /// Refuses `--flamegraph` without the one figure it profiles (`figures` names the choices) and a file name that is
    /// not an SVG's.
    package func validate(only: String?, figures: [String]) throws {
        guard let flamegraph else { return }
        guard only != nil else {
            throw ValidationError("--flamegraph profiles one figure: add --only with one of \(figures.joined(separator: ", "))")
        }
        guard flamegraph.hasSuffix(".svg"), flamegraph.count > 4 else {
            throw ValidationError("--flamegraph \(flamegraph): expected a file name ending in .svg")
        }
    }
}

/// Runs this workbench again for one figure under `perf record -g`, folds what perf recorded and draws the flame graph.
package enum FlameGraphRecording {
    /// What is said when perf is missing, and how to get it.
    package static let perfMissing =
        "--flamegraph records with perf, which is not installed (not on PATH): install Debian's linux-perf "
        + "(apt-get install linux-perf; tools/setup.sh installs it with the rest of tools/apt-packages.txt)"

    /// Where `perf` is on `path` (a PATH value), or nil.
    package static func perf(onPath path: String?) -> String? {
        for directory in (path ?? "").split(separator: ":") where !directory.isEmpty {
            let candidate = "\(directory)/perf"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Records `arguments` (a workbench command line, e.g. `bench jwt --only sign`) and writes the flame graph to `file`.
    /// - returns: what the recorded run printed (its figure) and the samples drawn.
    /// - throws: `WorkbenchError` when perf is missing, fails or recorded nothing; `ExitStatus` when `file` cannot be written.
    package static func record(
        _ arguments: [String], callGraph: FlameGraphOption.CallGraph, title: String, to file: String
    ) throws -> (
        output: String, samples: Int
    ) {
        guard let perf = perf(onPath: ProcessInfo.processInfo.environment["PATH"]) else { throw WorkbenchError(perfMissing) }
        // The file is made first, so a path that cannot be written fails now and not after the recording.
        guard FileManager.default.createFile(atPath: file, contents: nil) else {
            throw ExitStatus.inputWrong("--flamegraph \(file): cannot write there")
        }
        let directory = NSTemporaryDirectory() + "workbench-flamegraph-\(getpid())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let data = "\(directory)/perf.data"
        let errors = "\(directory)/perf.errors"
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let output: String
        let script: String
        do {
            let unwinding = callGraph == .fp ? ["-g"] : ["--call-graph", "dwarf"]
            output = try ChildProcess.output([perf, "record"] + unwinding + ["-o", data, "--", executable] + arguments, errorFile: errors)
            script = try ChildProcess.output([perf, "script", "-i", data], errorFile: errors)
        } catch {
            try? FileManager.default.removeItem(atPath: file)
            // perf's own errors say why (perf_event_paranoid, a missing kernel package) and the run's say what failed.
            throw WorkbenchError("perf could not record the figure: \(error)")
        }
        let stacks = PerfScript.fold(script, symbolName: SwiftDemangler.name)
        guard stacks.total > 0 else {
            try? FileManager.default.removeItem(atPath: file)
            throw WorkbenchError("perf recorded no samples of \(arguments.joined(separator: " "))")
        }
        let command = (["workbench"] + arguments).joined(separator: " ")
        let recording = callGraph == .fp ? "perf record -g" : "perf record --call-graph dwarf"
        let svg = FlameGraphSVG(title: title, subtitle: "\(recording) -- \(command)").render(stacks)
        do {
            try svg.write(toFile: file, atomically: true, encoding: .utf8)
        } catch {
            throw ExitStatus.inputWrong("--flamegraph \(file): cannot write there: \(error.localizedDescription)")
        }
        return (output, stacks.total)
    }
}
