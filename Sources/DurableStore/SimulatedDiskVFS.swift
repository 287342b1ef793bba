import Foundation
import GRDBSQLite
import PercentEncoding
import Synchronization
import Wire

/// SQLite on a node's simulated ``Wire/Disk``: one VFS, `workbench-disk`, registered once per process (never the
/// default one), which finds the disk of each file by its path: `/@disk-ID-BOOT/PATH` is `PATH` on the disk registered
/// as ID, in the life BOOT of its node. GRDB opens such a file through a URI
/// (`file:/@disk-7-0/var/lib/store.db?vfs=workbench-disk`); SQLite names the journal after it, so once the node has crashed
/// every file a connection from before tries to open or delete is refused, as its process died with the node.
///
/// What it does not do, on purpose: shared memory (the database keeps a rollback journal, see ``DurableDatabase``),
/// locks between processes (one process holds every connection, and under simulation one thread runs them one after
/// the other, so a lock is only noted), sleeping (SQLite's busy handler is never waited out: virtual time does not
/// pass), the wall clock (SQL's `CURRENT_TIMESTAMP` reads the simulation's epoch; the stores take their times from
/// the node's clock) and the system's randomness (the VFS's stream is seeded). Temporary files without a name are
/// refused: the connections keep them in memory (`temp_store = MEMORY`).
enum SimulatedDiskVFS {
    static let name = "workbench-disk"
    /// What starts a path that names a registered disk.
    static let prefix = "/@disk-"

    /// The URI GRDB opens for `path` on `disk`, in the node's present life.
    ///
    /// - throws: ``DurableDatabaseError`` when this SQLite takes no URI file names (it was built without
    ///   `SQLITE_USE_URI`, and the name would be taken as a file of the machine's) or the VFS cannot be registered.
    static func uri(for path: String, on disk: any Disk) throws -> String {
        if let registrationProblem { throw DurableDatabaseError(registrationProblem) }
        let rooted = path.hasPrefix("/") ? path : "/" + path
        return "file:" + prefix + String(DiskRegistry.id(of: disk)) + "-" + String(disk.boot) + Percent.encode(rooted) + "?vfs=" + name
    }

    /// The disk, life and path a name of this VFS stands for; nil when it names no registered disk.
    static func locate(_ name: String) -> (disk: any Disk, boot: Int, path: String)? {
        guard name.hasPrefix(prefix) else { return nil }
        let rest = name.dropFirst(prefix.count)
        guard let slash = rest.firstIndex(of: "/") else { return nil }
        let parts = rest[..<slash].split(separator: "-")
        guard parts.count == 2, let id = Int(parts[0]), let boot = Int(parts[1]), let disk = DiskRegistry.disk(id) else { return nil }
        return (disk, boot, String(rest[slash...]))
    }

    /// Registers the VFS on first use; nil once registered, else why it could not be.
    private static let registrationProblem: String? = {
        guard sqlite3_compileoption_used("USE_URI") == 1 else {
            return "this SQLite (\(String(cString: sqlite3_libversion()))) was built without SQLITE_USE_URI: "
                + "a database on a simulated disk cannot be opened"
        }
        let code = sqlite3_vfs_register(vfs, 0)
        return code == SQLITE_OK ? nil : "sqlite3_vfs_register(\(name)) failed with code \(code)"
    }()

    // MARK: The VFS

    /// Longest path the VFS hands SQLite.
    static let maximumPathBytes: Int32 = 1_024

    /// The simulation's epoch (2026-01-01T00:00:00Z) as a Julian day in milliseconds: SQLite's `xCurrentTimeInt64`.
    static let epochJulianMilliseconds: Int64 = 210_866_760_000_000 + 1_767_225_600_000

    /// Seeded, as every random draw of a simulation: SQLite asks its default VFS for randomness, never this one, so
    /// this only answers a caller that names the VFS.
    private static let random = RandomStream(seed: 0, name: "sqlite-vfs")

    // The VFS and its file methods live as long as the process (SQLite keeps pointers to both). `nonisolated(unsafe)`:
    // written once, here, before SQLite can see them; read only by SQLite after.
    nonisolated(unsafe) private static let vfs: UnsafeMutablePointer<sqlite3_vfs> = {
        let vfs = UnsafeMutablePointer<sqlite3_vfs>.allocate(capacity: 1)
        vfs.initialize(to: sqlite3_vfs())
        vfs.pointee.iVersion = 2
        vfs.pointee.szOsFile = Int32(OpenDiskFile.slotOffset + MemoryLayout<UnsafeMutableRawPointer>.stride)
        vfs.pointee.mxPathname = maximumPathBytes
        vfs.pointee.zName = UnsafePointer(strdup(name))
        vfs.pointee.xOpen = { _, name, file, flags, outFlags in
            guard let file else { return SQLITE_CANTOPEN }
            file.pointee.pMethods = nil
            guard let name, let located = SimulatedDiskVFS.locate(String(cString: name)) else { return SQLITE_CANTOPEN }
            do {
                let opened = try located.disk.open(located.path, create: flags & SQLITE_OPEN_CREATE != 0, boot: located.boot)
                OpenDiskFile.attach(
                    OpenDiskFile(disk: located.disk, file: opened, deleteOnClose: flags & SQLITE_OPEN_DELETEONCLOSE != 0), to: file)
                file.pointee.pMethods = UnsafePointer(SimulatedDiskVFS.ioMethods)
                outFlags?.pointee = flags
                return SQLITE_OK
            } catch {
                return SQLITE_CANTOPEN
            }
        }
        vfs.pointee.xDelete = { _, name, _ in
            guard let name, let located = SimulatedDiskVFS.locate(String(cString: name)) else {
                return SimulatedDiskVFS.ResultCode.deleteNoEntry
            }
            do {
                try located.disk.delete(located.path, boot: located.boot)
                return SQLITE_OK
            } catch {
                return SimulatedDiskVFS.kind(of: error) == .notFound ? SimulatedDiskVFS.ResultCode.deleteNoEntry : SimulatedDiskVFS.ResultCode.delete
            }
        }
        vfs.pointee.xAccess = { _, name, _, result in
            let found = name.flatMap { SimulatedDiskVFS.locate(String(cString: $0)) }.map { $0.disk.exists($0.path) } ?? false
            result?.pointee = found ? 1 : 0
            return SQLITE_OK
        }
        vfs.pointee.xFullPathname = { _, name, size, out in
            guard let name, let out else { return SQLITE_CANTOPEN }
            let bytes = strlen(name)
            guard bytes < Int(size) else { return SQLITE_CANTOPEN }
            _ = memcpy(out, name, bytes + 1)
            return SQLITE_OK
        }
        vfs.pointee.xRandomness = { _, count, out in
            guard let out, count > 0 else { return 0 }
            let bytes = SimulatedDiskVFS.random.bytes(Int(count))
            bytes.withUnsafeBytes { _ = memcpy(out, $0.baseAddress!, bytes.count) }
            return count
        }
        vfs.pointee.xSleep = { _, microseconds in microseconds }
        vfs.pointee.xCurrentTime = { _, out in
            out?.pointee = Double(SimulatedDiskVFS.epochJulianMilliseconds) / 86_400_000
            return SQLITE_OK
        }
        vfs.pointee.xGetLastError = { _, _, _ in 0 }
        vfs.pointee.xCurrentTimeInt64 = { _, out in
            out?.pointee = SimulatedDiskVFS.epochJulianMilliseconds
            return SQLITE_OK
        }
        return vfs
    }()

    nonisolated(unsafe) private static let ioMethods: UnsafeMutablePointer<sqlite3_io_methods> = {
        let methods = UnsafeMutablePointer<sqlite3_io_methods>.allocate(capacity: 1)
        methods.initialize(to: sqlite3_io_methods())
        // Version 1: no shared memory, no memory-mapped pages.
        methods.pointee.iVersion = 1
        methods.pointee.xClose = { file in
            guard let file, let open = OpenDiskFile.detach(from: file) else { return SQLITE_OK }
            // A handle from before a crash deletes nothing: the file of that name now belongs to the node's next life.
            if open.deleteOnClose { try? open.disk.delete(open.file.path, boot: open.file.boot) }
            return SQLITE_OK
        }
        methods.pointee.xRead = { file, buffer, amount, offset in
            guard let open = OpenDiskFile.attached(to: file), let buffer else { return SimulatedDiskVFS.ResultCode.read }
            do {
                let bytes = try open.disk.read(open.file, at: Int(offset), count: Int(amount))
                bytes.withUnsafeBytes { if let base = $0.baseAddress { _ = memcpy(buffer, base, bytes.count) } }
                guard bytes.count == Int(amount) else {
                    // SQLite counts on the rest being zeros.
                    _ = memset(buffer + bytes.count, 0, Int(amount) - bytes.count)
                    return SimulatedDiskVFS.ResultCode.shortRead
                }
                return SQLITE_OK
            } catch {
                return SimulatedDiskVFS.ResultCode.read
            }
        }
        methods.pointee.xWrite = { file, buffer, amount, offset in
            guard let open = OpenDiskFile.attached(to: file), let buffer else { return SimulatedDiskVFS.ResultCode.write }
            do {
                try open.disk.write(open.file, at: Int(offset), Array(UnsafeRawBufferPointer(start: buffer, count: Int(amount))))
                return SQLITE_OK
            } catch {
                return SimulatedDiskVFS.kind(of: error) == .limit ? SQLITE_FULL : SimulatedDiskVFS.ResultCode.write
            }
        }
        methods.pointee.xTruncate = { file, size in
            guard let open = OpenDiskFile.attached(to: file) else { return SimulatedDiskVFS.ResultCode.truncate }
            do {
                try open.disk.truncate(open.file, to: Int(size))
                return SQLITE_OK
            } catch {
                return SimulatedDiskVFS.ResultCode.truncate
            }
        }
        methods.pointee.xSync = { file, _ in
            guard let open = OpenDiskFile.attached(to: file) else { return SimulatedDiskVFS.ResultCode.fsync }
            do {
                try open.disk.sync(open.file)
                return SQLITE_OK
            } catch {
                return SimulatedDiskVFS.ResultCode.fsync
            }
        }
        methods.pointee.xFileSize = { file, size in
            guard let open = OpenDiskFile.attached(to: file) else { return SimulatedDiskVFS.ResultCode.fstat }
            do {
                let bytes = try open.disk.size(of: open.file)
                size?.pointee = sqlite3_int64(bytes)
                return SQLITE_OK
            } catch {
                return SimulatedDiskVFS.ResultCode.fstat
            }
        }
        methods.pointee.xLock = { file, level in
            OpenDiskFile.attached(to: file)?.lock = level
            return SQLITE_OK
        }
        methods.pointee.xUnlock = { file, level in
            OpenDiskFile.attached(to: file)?.lock = level
            return SQLITE_OK
        }
        // No other process holds a lock: one connection per store, and its own lock is no reason to leave a hot journal.
        methods.pointee.xCheckReservedLock = { _, result in
            result?.pointee = 0
            return SQLITE_OK
        }
        methods.pointee.xFileControl = { _, _, _ in SQLITE_NOTFOUND }
        methods.pointee.xSectorSize = { _ in Int32(SimulatedDiskVFS.diskSectorBytes) }
        // No atomic writes, no safe append, no power-safe overwrite: SQLite assumes the worst a crash can do.
        methods.pointee.xDeviceCharacteristics = { _ in 0 }
        return methods
    }()

    /// What kind of disk failure `error` is (the disk throws only ``Wire/DiskError``).
    static func kind(of error: any Error) -> DiskError.Kind? { (error as? DiskError)?.kind }

    /// The sector size the VFS reports: a simulated disk tears writes at 512 bytes.
    static let diskSectorBytes = 512

    /// SQLite's extended I/O result codes (macros Swift does not import).
    enum ResultCode {
        static let read = SQLITE_IOERR | (1 << 8)
        static let shortRead = SQLITE_IOERR | (2 << 8)
        static let write = SQLITE_IOERR | (3 << 8)
        static let fsync = SQLITE_IOERR | (4 << 8)
        static let truncate = SQLITE_IOERR | (6 << 8)
        static let fstat = SQLITE_IOERR | (7 << 8)
        static let delete = SQLITE_IOERR | (10 << 8)
        static let deleteNoEntry = SQLITE_IOERR | (23 << 8)
    }
}

/// A file SQLite opened through the VFS: kept, retained, in the bytes SQLite gives each file after its `sqlite3_file`.
///
/// Only the connection that opened it uses it, one call at a time (SQLite serializes a connection's calls).
final class OpenDiskFile {
    let disk: any Disk
    let file: DiskFile
    let deleteOnClose: Bool
    /// The lock level SQLite last asked for (nothing else holds one: see ``SimulatedDiskVFS``).
    var lock: Int32 = 0

    init(disk: any Disk, file: DiskFile, deleteOnClose: Bool) {
        self.disk = disk
        self.file = file
        self.deleteOnClose = deleteOnClose
    }

    /// Where in SQLite's file object the pointer to this one is kept.
    static let slotOffset = MemoryLayout<sqlite3_file>.stride

    static func attach(_ open: OpenDiskFile, to file: UnsafeMutablePointer<sqlite3_file>) {
        UnsafeMutableRawPointer(file).storeBytes(
            of: Unmanaged.passRetained(open).toOpaque(), toByteOffset: slotOffset, as: UnsafeMutableRawPointer?.self)
    }

    static func attached(to file: UnsafeMutablePointer<sqlite3_file>?) -> OpenDiskFile? {
        guard let file, let pointer = UnsafeMutableRawPointer(file).load(fromByteOffset: slotOffset, as: UnsafeMutableRawPointer?.self)
        else { return nil }
        return Unmanaged<OpenDiskFile>.fromOpaque(pointer).takeUnretainedValue()
    }

    /// The file attached to `file`, released from it (at its close).
    static func detach(from file: UnsafeMutablePointer<sqlite3_file>) -> OpenDiskFile? {
        guard let pointer = UnsafeMutableRawPointer(file).load(fromByteOffset: slotOffset, as: UnsafeMutableRawPointer?.self) else {
            return nil
        }
        UnsafeMutableRawPointer(file).storeBytes(of: nil, toByteOffset: slotOffset, as: UnsafeMutableRawPointer?.self)
        return Unmanaged<OpenDiskFile>.fromOpaque(pointer).takeRetainedValue()
    }
}

/// The disks the VFS can reach, by the id their paths carry. Held weakly: a world's disks go with it, and an id is
/// never given twice, so a connection left from a freed world finds no disk rather than another world's.
enum DiskRegistry {
    private struct Entry {
        weak var disk: (any Disk)?
    }

    private struct Registry {
        var next = 1
        var entries: [Int: Entry] = [:]
    }

    private static let registry = Mutex(Registry())

    /// The id of `disk`, registering it on first use.
    static func id(of disk: any Disk) -> Int {
        registry.withLock { registry in
            registry.entries = registry.entries.filter { $0.value.disk != nil }
            if let found = registry.entries.first(where: { $0.value.disk === disk }) { return found.key }
            let id = registry.next
            registry.next += 1
            registry.entries[id] = Entry(disk: disk)
            return id
        }
    }

    static func disk(_ id: Int) -> (any Disk)? {
        registry.withLock { $0.entries[id]?.disk }
    }
}
