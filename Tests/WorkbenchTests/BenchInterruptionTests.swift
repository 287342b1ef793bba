import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A bench stopped halfway leaves nothing behind: not its servers, not their folders.
@Suite struct BenchInterruptionTests {
    /// The pids of `parent`'s children whose command line contains `word`.
    static func children(of parent: Int32, running word: String) -> [Int32] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(Int32.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                let afterName = stat.range(of: ") ", options: .backwards)
            else { return false }
            // Fields after the command name: state, ppid, …
            let fields = stat[afterName.upperBound...].split(separator: " ")
            guard fields.count > 1, Int32(fields[1]) == parent else { return false }
            let command = (try? String(contentsOfFile: "/proc/\(pid)/cmdline", encoding: .utf8)) ?? ""
            return command.contains(word)
        }
    }

    /// Whether `pid` is still a running process (a zombie nobody reaped counts as gone).
    static func isRunning(_ pid: Int32) -> Bool {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let afterName = stat.range(of: ") ", options: .backwards)
        else { return false }
        return !stat[afterName.upperBound...].hasPrefix("Z")
    }

    @Test func aTerminatedLoadBenchStopsItsServeAndRemovesItsFolder() throws {
        let bench = try ServedProcess.start(
            Repository.workbenchBinary.path, ["bench", "load", "--clients", "2", "--seconds", "120"], currentDirectory: Repository.root.path)
        let pid = bench.process.processIdentifier
        var serve: [Int32] = []
        for _ in 0..<600 where serve.isEmpty {
            serve = Self.children(of: pid, running: "serve")
            if serve.isEmpty { usleep(100_000) }
        }
        let folder = NSTemporaryDirectory() + "workbench-bench-load-\(pid)"
        try #require(serve.count == 1, "no serve child within a minute: \(bench.output)\(bench.errorOutput)")
        #expect(FileManager.default.fileExists(atPath: folder))
        // The bench notes its child the moment it has started it; give that moment room.
        usleep(500_000)

        #expect(bench.stop() == .exited(128 + SIGTERM), "\(bench.errorOutput)")
        #expect(bench.errorOutput.contains("stopping what the bench started"))
        for _ in 0..<50 where Self.isRunning(serve[0]) { usleep(100_000) }
        #expect(!Self.isRunning(serve[0]), "serve outlived its bench")
        #expect(!FileManager.default.fileExists(atPath: folder), "the bench's folder is left behind")
    }
}
