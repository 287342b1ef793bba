import Dispatch
import Foundation

/// How `workbench serve` learns to stop: SIGINT (Ctrl-C) or SIGTERM, whichever comes first.
enum TerminationSignal {
    /// Suspends until SIGINT or SIGTERM arrives; returns its name.
    static func wait() async -> String {
        await withCheckedContinuation { (continuation: CheckedContinuation<String, Never>) in
            let queue = DispatchQueue(label: "workbench.signals")
            let once = NSLock()
            nonisolated(unsafe) var resumed = false
            nonisolated(unsafe) var sources: [DispatchSourceSignal] = []
            for (number, name) in [(SIGINT, "SIGINT"), (SIGTERM, "SIGTERM")] {
                signal(number, SIG_IGN)
                let source = DispatchSource.makeSignalSource(signal: number, queue: queue)
                source.setEventHandler {
                    once.lock()
                    defer { once.unlock() }
                    guard !resumed else { return }
                    resumed = true
                    for source in sources { source.cancel() }
                    continuation.resume(returning: name)
                }
                source.resume()
                sources.append(source)
            }
        }
    }
}
