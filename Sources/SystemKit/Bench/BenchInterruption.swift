import Dispatch
import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// What a bench must undo if it is interrupted (Ctrl-C or SIGTERM) before it undoes it itself: the servers it
/// started and their temporary folders. Without this, an interrupted print bench left its server running and its
/// spool behind, holding ports, disk and CPU, and the next bench measured a machine that was not quiet.
///
/// Cleanups run last-registered first, as `defer`s do: a server ends before its folder is removed.
package enum BenchInterruption {
    /// A registered cleanup; ``done(_:)`` withdraws it once the bench has done the work itself.
    package struct Token: Hashable, Sendable { fileprivate let id: Int }

    private struct State {
        package var next = 0
        package var cleanups: [(id: Int, run: @Sendable () -> Void)] = []
        package var watching: [DispatchSourceSignal] = []
    }

    private static let state = Mutex(State())
    /// The signal being handled, 0 before one arrives.
    private static let interruption = Atomic<Int32>(0)

    /// Runs `cleanup` if the process is interrupted before ``done(_:)`` withdraws it.
    package static func onInterruption(_ cleanup: @escaping @Sendable () -> Void) -> Token {
        state.withLock { state in
            if state.watching.isEmpty { state.watching = watchSignals() }
            state.next += 1
            state.cleanups.append((state.next, cleanup))
            return Token(id: state.next)
        }
    }

    package static func done(_ token: Token) {
        state.withLock { $0.cleanups.removeAll { $0.id == token.id } }
    }

    /// A temporary folder for a bench (`workbench-bench-NAME-PID`), created now and removed if the bench is
    /// interrupted; the bench removes it with ``remove(_:)`` when it ends.
    package static func workFolder(_ name: String) throws -> (path: String, token: Token) {
        let path = NSTemporaryDirectory() + "workbench-bench-\(name)-\(getpid())"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
        return (
            path,
            onInterruption {
                // A file written in the folder while it is being removed makes the removal fail; try again.
                for _ in 0..<5 where FileManager.default.fileExists(atPath: path) {
                    if (try? FileManager.default.removeItem(atPath: path)) == nil { usleep(100_000) }
                }
            }
        )
    }

    /// Removes a folder made by ``workFolder(_:)``.
    package static func remove(_ folder: (path: String, token: Token)) {
        done(folder.token)
        try? FileManager.default.removeItem(atPath: folder.path)
    }

    /// SIGINT and SIGTERM now run the cleanups and end the process as the signal would have (status 128 + N).
    ///
    /// The bench goes on meanwhile, and sees its server die under the cleanups: its own error exit must not win.
    /// An exit while a signal is handled waits (in an `atexit` handler) for the handler's `_exit`.
    private static func watchSignals() -> [DispatchSourceSignal] {
        atexit {
            guard BenchInterruption.interruption.load(ordering: .acquiring) != 0 else { return }
            while true { pause() }
        }
        let queue = DispatchQueue(label: "workbench.bench-interruption")
        return [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
            source.setEventHandler {
                guard interruption.compareExchange(expected: 0, desired: number, ordering: .acquiringAndReleasing).exchanged else { return }
                let cleanups = state.withLock { state in
                    defer { state.cleanups = [] }
                    return state.cleanups
                }
                FileHandle.standardError.write(
                    Data("workbench: \(number == SIGINT ? "interrupted" : "terminated"); stopping what the bench started\n".utf8))
                for cleanup in cleanups.reversed() { cleanup.run() }
                _exit(128 + number)
            }
            source.resume()
            return source
        }
    }
}
