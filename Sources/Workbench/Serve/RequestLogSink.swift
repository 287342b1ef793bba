import Foundation
import Scenario
import Synchronization
import Wire

#if canImport(Glibc)
    import Glibc
#endif

/// The live wire's trace sink under `serve`: feeds ``RequestLog`` and prints its lines on standard output. Events
/// arrive on the event loops; each line is one write(2) under the lock, unbuffered, so lines never interleave and
/// a reader of a pipe or file sees each at once.
final class RequestLogSink: TraceSink {
    private let log = Mutex(RequestLog())

    func record(actor: String, event: String, fields: [(String, String)]) {
        var now = timespec()
        clock_gettime(CLOCK_REALTIME, &now)
        let microseconds = Int64(now.tv_sec) * 1_000_000 + Int64(now.tv_nsec) / 1000
        log.withLock { log in
            guard let line = log.record(actor: actor, event: event, fields: fields, at: microseconds) else { return }
            FileHandle.standardOutput.write(Data((line + "\n").utf8))
        }
    }
}
