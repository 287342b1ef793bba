import Synchronization
import Wire

/// One node's disk under simulation: files by path, each with its durable contents and, above them, the page cache
/// of the writes not yet synced (FoundationDB's `AsyncFileNonDurable`, TigerBeetle's simulated storage).
///
/// Reads see every write at once; ``sync(_:)`` makes a file's writes durable. ``crash()`` is the node losing its
/// power: for each file with unsynced changes a seeded choice either drops them all or **tears** the last one (the
/// changes before it reached the platter, and of the last write a prefix of whole 512-byte sectors); a file never
/// synced is gone. Every later call on a handle opened before the crash fails (``DiskError/Kind/staleHandle``).
///
/// A power cut can also fall **during** a write (``cutPower(atChange:then:)``): the disk is then as it was when that
/// write reached the page cache, whatever the node does until its crash; the crash loses or tears from there (the
/// write the power went in is the last, the one a tear cuts). A crash between steps can never fall inside a commit,
/// whose writes and syncs run in one step; this one can.
///
/// Faults, off unless a scenario switches them (see ``faultPoints``): a write error, a read error, and the "fsync
/// lie" (a sync that returns success but makes nothing durable). The disk checks a point only once something has
/// named it, so a world whose scenario names none never declares them, and a swarm never draws them by itself.
///
/// Its choices come from its own seeded stream (the kernel derives `disk:NODE` from the run seed): drawing from it
/// shifts no other random draw of the world. Nothing here touches a real file, a clock or the system's randomness.
public final class SimulatedDisk: Disk {
    /// The unit a crash tears writes at: the sector size the disk reports (SQLite pads its journal to it).
    public static let sectorBytes = 512
    /// The largest file the disk holds, and how many files: a store past them fails like a full disk.
    public static let maximumFileBytes = 1 << 30
    public static let maximumFiles = 10_000

    /// A write fails with an I/O error (nothing is written).
    public static let writeErrorFault = "disk.write-error"
    /// A read fails with an I/O error.
    public static let readErrorFault = "disk.read-error"
    /// A sync returns success but leaves the file's changes in the page cache: a crash after it loses them.
    public static let fsyncLieFault = "disk.fsync-lie"
    /// Every fault point the disk checks.
    public static let faultPoints = [writeErrorFault, readErrorFault, fsyncLieFault]

    /// The node whose disk it is (its trace events carry this name).
    public let node: String
    private let random: RandomStream
    private let faults: FaultPoints
    private let tracer: any TraceSink
    private let state = Mutex(DiskState())

    /// Changes the disk's state under its lock (a crash, from the extension beside this file).
    func mutate<T: Sendable>(_ body: (inout DiskState) -> T) -> T { state.withLock { body(&$0) } }

    /// The next 64 bits of the disk's own stream.
    func draw() -> UInt64 { random.next() }

    /// A number from 0 to `count` − 1 from the disk's own stream.
    func draw(below count: Int) -> Int { random.int(in: 0...(count - 1)) }

    /// - parameters:
    ///   - node: the node it belongs to.
    ///   - random: the disk's own stream (crash choices and nothing else).
    ///   - faults: the world's fault points (the three of ``faultPoints``).
    ///   - tracer: where a fault that fired is recorded, as the node's `fault-fired`.
    public init(node: String, random: RandomStream, faults: FaultPoints, tracer: any TraceSink) {
        self.node = node
        self.random = random
        self.faults = faults
        self.tracer = tracer
    }

    // MARK: Disk

    public var boot: Int { state.withLock { $0.boot } }

    public func open(_ path: String, create: Bool, boot: Int) throws(DiskError) -> DiskFile {
        try state.withLock { state -> Result<DiskFile, DiskError> in
            guard boot == state.boot else { return .failure(DiskError(.staleHandle, "\(path) opened for a life of \(node) that crashed")) }
            if state.files[path] == nil {
                guard create else { return .failure(DiskError(.notFound, "no file \(path) on \(node)'s disk")) }
                guard state.files.count < Self.maximumFiles else {
                    return .failure(DiskError(.limit, "\(node)'s disk holds at most \(Self.maximumFiles) files"))
                }
                state.files[path] = SimulatedFile()
            }
            return .success(DiskFile(path: path, boot: state.boot))
        }.get()
    }

    public func read(_ file: DiskFile, at offset: Int, count: Int) throws(DiskError) -> [UInt8] {
        guard offset >= 0, count >= 0 else { throw DiskError(.ioError, "read of \(count) bytes at \(offset) in \(file.path)") }
        if fires(Self.readErrorFault) { throw DiskError(.ioError, "read error in \(file.path) on \(node)'s disk") }
        return try state.withLock { state -> Result<[UInt8], DiskError> in
            state.live(file, on: node) { contents in
                let current = contents.current
                guard offset < current.count else { return [] }
                return Array(current[offset..<min(current.count, offset + count)])
            }
        }.get()
    }

    public func write(_ file: DiskFile, at offset: Int, _ bytes: [UInt8]) throws(DiskError) {
        guard offset >= 0, offset <= Self.maximumFileBytes - bytes.count else {
            throw DiskError(.limit, "a write of \(bytes.count) bytes at \(offset) in \(file.path) passes \(Self.maximumFileBytes) bytes")
        }
        if fires(Self.writeErrorFault) { throw DiskError(.ioError, "write error in \(file.path) on \(node)'s disk") }
        try change(file, .write(offset: offset, bytes: bytes))
    }

    public func truncate(_ file: DiskFile, to size: Int) throws(DiskError) {
        guard (0...Self.maximumFileBytes).contains(size) else {
            throw DiskError(.limit, "\(file.path) cannot be \(size) bytes (0 to \(Self.maximumFileBytes))")
        }
        try change(file, .truncate(size: size))
    }

    /// Makes `change` to `file`; when it is the change an armed power cut waits for, the cut falls on it (and its
    /// continuation runs, outside the lock).
    private func change(_ file: DiskFile, _ change: FileChange) throws(DiskError) {
        let cut = try state.withLock { state -> Result<PowerCut?, DiskError> in
            state.change(file, on: node, change).map { state.countChange(on: file.path) }
        }.get()
        if let cut { cut.then(file.path) }
    }

    public func sync(_ file: DiskFile) throws(DiskError) {
        let lie = fires(Self.fsyncLieFault)
        try state.withLock { state -> Result<Void, DiskError> in
            state.live(file, on: node) { contents in
                if !lie { contents.sync() }
            }
        }.get()
    }

    public func size(of file: DiskFile) throws(DiskError) -> Int {
        try state.withLock { state -> Result<Int, DiskError> in
            state.live(file, on: node) { $0.current.count }
        }.get()
    }

    public func exists(_ path: String) -> Bool {
        state.withLock { $0.files[path] != nil }
    }

    public func delete(_ path: String, boot: Int) throws(DiskError) {
        try state.withLock { state -> Result<Void, DiskError> in
            guard boot == state.boot else { return .failure(DiskError(.staleHandle, "\(path) deleted for a life of \(node) that crashed")) }
            guard state.files.removeValue(forKey: path) != nil else {
                return .failure(DiskError(.notFound, "no file \(path) on \(node)'s disk"))
            }
            return .success(())
        }.get()
    }

    // MARK: A power cut during a write

    /// Arms a power cut: the node loses its power during its `change`th write or truncation from now (1, or less: the
    /// next one), whatever file it is of. That change reaches the page cache; from then on nothing the node does reaches the
    /// disk (a crash keeps what was there at the cut). `then` runs once, just after the change, with the file's path:
    /// the caller stops the node (silences it and crashes it). Arming again replaces an armed cut; a crash disarms it.
    public func cutPower(atChange change: Int, then: @escaping @Sendable (String) -> Void) {
        state.withLock { $0.armed = PowerCut(changesLeft: max(change, 1), then: then) }
    }

    /// Disarms a power cut still waiting for its write (`after heal`: every fault ends); one that fell stays.
    public func disarmPowerCut() {
        state.withLock { $0.armed = nil }
    }

    /// Whether the power has been cut during a write and the node has not crashed since.
    public var isPowerCut: Bool { state.withLock { $0.atCut != nil } }

    // MARK: Looking at it

    /// Every file's path, sorted.
    public var paths: [String] { state.withLock { $0.files.keys.sorted() } }

    /// What a reader of `path` sees now (nil when there is no such file).
    public func contents(of path: String) -> [UInt8]? { state.withLock { $0.files[path]?.current } }

    /// What of `path` would survive a crash now without tearing (nil when its name would not).
    public func durableContents(of path: String) -> [UInt8]? {
        state.withLock { state in state.files[path].flatMap { $0.durableExists ? $0.durable : nil } }
    }

    /// Whether `path` has changes a crash could lose.
    public func hasUnsyncedChanges(_ path: String) -> Bool {
        state.withLock { state in state.files[path].map { !$0.changes.isEmpty || !$0.durableExists } ?? false }
    }

    // MARK: Faults

    /// Whether `point` fires now: only once a scenario has switched it (checking would declare it otherwise).
    private func fires(_ point: String) -> Bool {
        guard faults.point(point) != nil, faults.fires(point) else { return false }
        tracer.record(actor: node, event: "fault-fired", fields: [("point", point)])
        return true
    }
}

/// A power cut waiting for a change (``SimulatedDisk/cutPower(atChange:then:)``).
struct PowerCut {
    var changesLeft: Int
    let then: @Sendable (String) -> Void
}

/// Every file of a disk, and how many crashes it has been through.
struct DiskState {
    var files: [String: SimulatedFile] = [:]
    var boot = 0
    /// A power cut waiting for its change, if one is armed.
    var armed: PowerCut?
    /// The files as they were when the power was cut during a write: what a crash starts from (nil: no cut, the
    /// crash starts from `files`).
    var atCut: [String: SimulatedFile]?

    /// Counts a change just made to `path` against the armed cut; the cut when it falls on this change.
    mutating func countChange(on path: String) -> PowerCut? {
        guard atCut == nil, var cut = armed else { return nil }
        cut.changesLeft -= 1
        guard cut.changesLeft == 0 else {
            armed = cut
            return nil
        }
        armed = nil
        atCut = files
        return cut
    }

    /// Runs `body` on the file `file` names, when the handle is of this life of the node and the file still exists.
    mutating func live<T>(_ file: DiskFile, on node: String, _ body: (inout SimulatedFile) -> T) -> Result<T, DiskError> {
        guard file.boot == boot else {
            return .failure(DiskError(.staleHandle, "\(file.path) was opened before \(node) crashed"))
        }
        guard files[file.path] != nil else { return .failure(DiskError(.notFound, "no file \(file.path) on \(node)'s disk")) }
        return .success(body(&files[file.path]!))
    }

    mutating func change(_ file: DiskFile, on node: String, _ change: FileChange) -> Result<Void, DiskError> {
        live(file, on: node) { $0.apply(change) }
    }
}

/// A change to a file not yet synced: what a crash may lose or tear.
enum FileChange {
    case write(offset: Int, bytes: [UInt8])
    case truncate(size: Int)

    /// `contents` with the change made.
    func applied(to contents: inout [UInt8]) {
        switch self {
        case .write(let offset, let bytes):
            if contents.count < offset + bytes.count { contents.append(contentsOf: repeatElement(0, count: offset + bytes.count - contents.count)) }
            contents.replaceSubrange(offset..<offset + bytes.count, with: bytes)
        case .truncate(let size):
            if size < contents.count {
                contents.removeSubrange(size...)
            } else {
                contents.append(contentsOf: repeatElement(0, count: size - contents.count))
            }
        }
    }
}

/// One file: what is on the platter, what readers see, and the changes between the two.
struct SimulatedFile {
    /// What survives a crash.
    var durable: [UInt8] = []
    /// What reads see: `durable` with `changes` made.
    var current: [UInt8] = []
    /// Changes since the last sync, oldest first.
    var changes: [FileChange] = []
    /// Whether the file's name survives a crash (it has been synced once).
    var durableExists = false

    mutating func apply(_ change: FileChange) {
        change.applied(to: &current)
        changes.append(change)
    }

    mutating func sync() {
        durable = current
        changes.removeAll()
        durableExists = true
    }
}
