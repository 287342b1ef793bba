import SCPms
import Synchronization
import Wire

/// The app's root logger, as SAP's `Logger.root` with `SAPcpmsLogUploader.attachToRootLogger()`: entries at or
/// above ``level`` are kept for upload to SCPms (oldest dropped beyond ``capacity``); lower ones are discarded.
///
/// The original session manager sets `Logger.root.logLevel = .error` before attaching, so by default only errors
/// are kept. One root per app (not a process global): several simulated phones run in one process.
public final class SCPmsRootLogger: Sendable {
    /// How many entries wait for upload at most.
    public static let capacity = 1000

    private let clock: NodeClock
    private let state: Mutex<(level: ClientLogLine.Severity, entries: [ClientLogLine])>

    /// A root with no entries that keeps those at or above `level`; `clock` stamps each entry with its time.
    public init(level: ClientLogLine.Severity = .error, clock: NodeClock) {
        self.clock = clock
        state = Mutex((level, []))
    }

    /// The lowest severity kept; entries below it are discarded as they are logged (kept ones stay when it
    /// changes).
    public var level: ClientLogLine.Severity {
        get { state.withLock { $0.level } }
        set { state.withLock { $0.level = newValue } }
    }

    /// A named logger writing into this root (the original's `Logger.shared(named: "SCPSessionLogger")`).
    public func logger(named name: String) -> SCPmsLogger { SCPmsLogger(name: name, root: self) }

    /// Entries waiting for upload, oldest first.
    public var pending: [ClientLogLine] { state.withLock { $0.entries } }

    /// Keeps the entry if its severity reaches the level; returns whether it was kept.
    @discardableResult
    func record(_ severity: ClientLogLine.Severity, source: String, location: String, _ message: String) -> Bool {
        let (seconds, attoseconds) = clock.unixTime.components
        let milliseconds = seconds * 1000 + attoseconds / 1_000_000_000_000_000
        let line = ClientLogLine(
            timestamp: ClientLogLine.timestamp(milliseconds: milliseconds), severity: severity,
            source: source, location: location, message: message)
        return state.withLock { state in
            guard severity.rank >= state.level.rank else { return false }
            if state.entries.count == Self.capacity { state.entries.removeFirst() }
            state.entries.append(line)
            return true
        }
    }

    /// Removes the first `count` entries (the ones an upload delivered; newer ones stay).
    func removeUploaded(_ count: Int) {
        state.withLock { $0.entries.removeFirst(min(count, $0.entries.count)) }
    }
}

/// A named logger: `error`, `warn`, `info`, `debug` write into the root with the name as the source.
public struct SCPmsLogger: Sendable {
    /// The logger's name, written as the source of each of its entries (e.g. `SCPSessionLogger`).
    public let name: String
    let root: SCPmsRootLogger

    /// Writes an entry into the root with this logger's name as its source and `location` as where it was logged;
    /// returns whether the root kept it (its severity reached the root's level).
    @discardableResult
    public func log(_ severity: ClientLogLine.Severity, _ message: String, location: String = "") -> Bool {
        root.record(severity, source: name, location: location, message)
    }

    /// Writes an error entry, which the root keeps at its default level.
    public func error(_ message: String, location: String = "") { log(.error, message, location: location) }
    /// Writes an info entry, which the root keeps only when its level is info or debug.
    public func info(_ message: String, location: String = "") { log(.info, message, location: location) }
}

extension ClientLogLine.Severity {
    var rank: Int {
        switch self {
        case .debug: 0
        case .info: 1
        case .warn: 2
        case .error: 3
        case .fatal: 4
        }
    }
}
