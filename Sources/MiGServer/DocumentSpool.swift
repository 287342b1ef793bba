import Crypto
import Foundation
import NIOCore
import Synchronization
import Wire

/// A document as it lies in the spool once its last byte has arrived.
public struct SpooledDocument: Sendable {
    /// Bytes after decompression (what the printer prints).
    public var bytes: Int64
    /// Hex SHA-256 of those bytes, when the content itself is not kept (a stored file needs no fingerprint,
    /// and hashing it would cost a fifth of the server's time per job), or kept on a simulated disk (small documents,
    /// which the invariants compare with what was acknowledged).
    public var digest: String?
    /// The spool file, if the content is kept.
    public var path: String?
    /// Its pages, counted from its content (set by the page counter the printer puts in front of the spool).
    public var pages: DocumentPages = .unexamined
    /// The format its content was recognised as, when it came as `application/octet-stream` and the page counter
    /// recognised it (PWG 5100.7 `document-format-detected`); nil when it was declared, or recognised as nothing.
    public var detectedFormat: String?
    /// The distinct page sizes a raster document's page headers give (PWG or Apple raster); empty for other formats.
    public var pageSizes: [PageSize] = []
}

/// Why a document could not be taken.
public enum SpoolError: Error, CustomStringConvertible, Sendable {
    case tooLarge(limit: Int64)
    case storage(String)
    case compression(String)

    public var description: String {
        switch self {
        case .tooLarge(let limit): "the document exceeds the limit of \(limit) bytes"
        case .storage(let why): "the spool could not store the document: \(why)"
        case .compression(let why): "the gzip document data is corrupt: \(why)"
        }
    }
}

/// Where documents go while they arrive: streamed, never held whole in memory.
public protocol DocumentSpool: Sendable {
    func open(jobID: Int64, document: Int32) throws(SpoolError) -> any DocumentWriter
    /// Whether documents are kept as files, which the page counter can read back.
    var keepsFiles: Bool { get }
    /// Removes finished documents' files (blocking work: on the node's blocking threads, inline under simulation).
    func remove(_ paths: [String])
    /// Documents' files no job named when the spool was opened (a crash's leftovers), removed then.
    var orphansRemoved: Int { get }
}

extension DocumentSpool {
    /// Documents are not kept as files the page counter can read, unless a spool says so.
    public var keepsFiles: Bool { false }
    /// No leftovers, unless a spool that keeps files removed some when it was opened.
    public var orphansRemoved: Int { 0 }
    public func remove(_ paths: [String]) { for path in paths { _ = unlink(path) } }
}

extension DocumentWriter {
    public func write(_ bytes: ByteBuffer) throws(SpoolError) { try write([bytes]) }
}

/// One document being received.
public protocol DocumentWriter: AnyObject {
    /// Appends `chunks`, in order (the chunks read from the connection, as they came: joining them first would copy
    /// the whole document once more on the event loop).
    func write(_ chunks: [ByteBuffer]) throws(SpoolError)
    /// Makes the document durable and describes it.
    func finish() throws(SpoolError) -> SpooledDocument
    /// Drops what was received (the upload failed).
    func discard()
}

/// Keeps only the size and digest of each document: what a simulated printer needs, at no memory cost.
public struct DigestSpool: DocumentSpool {
    public let limit: Int64
    public init(limit: Int64) { self.limit = limit }

    public func open(jobID: Int64, document: Int32) throws(SpoolError) -> any DocumentWriter { DigestWriter(limit: limit, path: nil) }
}

/// Writes each document to a file in a directory before the job is acknowledged. With `syncToDisk` (what
/// `workbench serve` runs) the file and then the directory are fsynced before the answer: the bytes and the
/// file's name both survive a power loss, not only a crash of the process (which the page cache covers).
public struct FileSpool: DocumentSpool {
    public var keepsFiles: Bool { true }
    public let directory: String
    public let limit: Int64
    public let syncToDisk: Bool
    /// Finished documents' files, emptied and kept to be the next documents' files.
    let spares: SpareFiles
    /// Documents' files no job named when the spool was opened, removed then.
    public let orphansRemoved: Int

    /// Opens the spool. `documents`, the file names the job records name (nil: every file is kept): any other job
    /// file is a crash's leftover — a document whose upload a kill cut short (its job is aborted at the restart), or
    /// a finished job's file the kill caught before it was removed — and is removed, so that no document outlives
    /// its job.
    public init(directory: String, limit: Int64, syncToDisk: Bool = false, documents: Set<String>? = nil) throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        self.directory = directory
        self.limit = limit
        self.syncToDisk = syncToDisk
        spares = SpareFiles(directory: directory)
        var orphans = 0
        if let documents {
            for name in try FileManager.default.contentsOfDirectory(atPath: directory)
            where Self.isDocument(name) && !documents.contains(name) && unlink("\(directory)/\(name)") == 0 {
                orphans += 1
            }
        }
        orphansRemoved = orphans
        // A spool directory made just now is itself only a name in its parent until that parent is synced.
        if syncToDisk { try syncDirectory(URL(fileURLWithPath: directory).deletingLastPathComponent().path) }
    }

    /// Whether a file name is a document's (`job-ID-N.doc`, as ``open(jobID:document:)`` names it).
    static func isDocument(_ name: String) -> Bool { name.hasPrefix("job-") && name.hasSuffix(".doc") }

    /// The file is created by the first write, on the node's blocking threads like every other file operation.
    public func open(jobID: Int64, document: Int32) throws(SpoolError) -> any DocumentWriter {
        FileWriter(path: "\(directory)/job-\(jobID)-\(document).doc", directory: syncToDisk ? directory : nil, limit: limit, spares: spares)
    }

    /// Empties the files and keeps them as spares (up to ``SpareFiles/most``; the rest are removed).
    public func remove(_ paths: [String]) { for path in paths { spares.recycle(path) } }
}

/// Emptied files of finished documents, kept under spare names in the spool directory to become the next documents'
/// files. A new file costs an inode, and on ext4 without a journal finding one means stepping over every inode freed
/// in the last seconds to minutes (`recently_deleted`): at a thousand jobs a second, creating and removing each job's
/// file took a fifth of MiG's time. A spare keeps its inode. Emptied before it is set aside, to a single zero byte: a
/// finished document's bytes do not outlive it. Not to zero bytes: ext4 takes a file cut to zero and written again
/// for a file being replaced (`auto_da_alloc`) and flushes it to disk when it is closed, which cost a twentieth of
/// MiG's time; so the next document overwrites the byte instead of opening the file with O_TRUNC. Spares a previous
/// run left are removed at start.
final class SpareFiles: Sendable {
    /// Most files kept: a few more than the documents that arrive while one job finishes.
    static let most = 64
    let directory: String
    private let state = Mutex(State())

    private struct State {
        var names: [String] = []
        var made = 0
    }

    init(directory: String) {
        self.directory = directory
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? [] where Self.isSpare(name) {
            _ = unlink("\(directory)/\(name)")
        }
    }

    static func isSpare(_ name: String) -> Bool { name.hasPrefix("spare-") }

    /// How many files are kept now.
    var count: Int { state.withLock { $0.names.count } }

    /// Empties the file at `path` (to one zero byte) and keeps it under a spare name; removes it when enough are kept
    /// (or it cannot be emptied or renamed).
    func recycle(_ path: String) {
        let name = state.withLock { state -> String? in
            guard state.names.count < Self.most else { return nil }
            state.made += 1
            return "\(directory)/spare-\(state.made)"
        }
        guard let name, Self.empty(path), rename(path, name) == 0 else {
            _ = unlink(path)
            return
        }
        state.withLock { $0.names.append(name) }
    }

    /// Cuts the file to its first byte and zeroes that.
    private static func empty(_ path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        var zero: UInt8 = 0
        return ftruncate(fd, 1) == 0 && pwrite(fd, &zero, 1, 0) == 1
    }

    /// Renames a kept file to `path` (one zero byte, as it was kept); false when none is kept.
    func take(as path: String) -> Bool {
        guard let name = state.withLock({ $0.names.popLast() }) else { return false }
        guard rename(name, path) == 0 else {
            _ = unlink(name)
            return false
        }
        return true
    }
}

/// fsyncs a directory, so the names created in it (a spool file, a database) survive a power loss: fsync of
/// a new file makes its bytes durable, not its directory entry.
func syncDirectory(_ path: String) throws(SpoolError) {
    let fd = Foundation.open(path.isEmpty ? "." : path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
    guard fd >= 0 else { throw .storage("cannot open directory \(path): \(String(cString: strerror(errno)))") }
    defer { close(fd) }
    guard fsync(fd) == 0 else { throw .storage("fsync of directory \(path): \(String(cString: strerror(errno)))") }
}

/// Lowercase hex of `bytes`: how a document's SHA-256 is written in the spool and the trace.
func hexString(_ bytes: some Sequence<UInt8>) -> String { bytes.map { String(format: "%02x", $0) }.joined() }

/// Counts, and hashes when there is no file (or when told to); the base of the file writers too.
class DigestWriter: DocumentWriter {
    let limit: Int64
    let path: String?
    private(set) var count: Int64 = 0
    private var hash: SHA256?

    init(limit: Int64, path: String?, hashes: Bool? = nil) {
        self.limit = limit
        self.path = path
        hash = hashes ?? (path == nil) ? SHA256() : nil
    }

    func write(_ chunks: [ByteBuffer]) throws(SpoolError) {
        for bytes in chunks {
            count += Int64(bytes.readableBytes)
            guard count <= limit else { throw .tooLarge(limit: limit) }
            if hash != nil { bytes.withUnsafeReadableBytes { hash!.update(bufferPointer: $0) } }
        }
    }

    func finish() throws(SpoolError) -> SpooledDocument {
        SpooledDocument(bytes: count, digest: hash.map { hexString($0.finalize()) }, path: path)
    }

    func discard() {}
}

final class FileWriter: DigestWriter {
    /// The open file; -1 before the first write and after the last.
    private var fd: Int32 = -1
    private var created = false
    /// The spool directory to fsync after the file, when documents are synced to disk; nil leaves both to the OS.
    private let syncedDirectory: String?
    private let spares: SpareFiles?
    /// The file is a spare: it still holds one byte until the document writes its first.
    private var reused = false

    init(path: String, directory syncedDirectory: String?, limit: Int64, spares: SpareFiles? = nil) {
        self.syncedDirectory = syncedDirectory
        self.spares = spares
        super.init(limit: limit, path: path)
    }

    /// The document's file: a spare renamed to its name when there is one (the directory is synced at the finish,
    /// with sync-to-disk, as for a new file), else a new file.
    private func create() throws(SpoolError) {
        guard !created, let path else { return }
        // A spare's one zero byte is overwritten by the document's first (or cut at the finish if it has none).
        reused = spares?.take(as: path) ?? false
        fd = Foundation.open(path, O_CREAT | (reused ? 0 : O_TRUNC) | O_WRONLY | O_CLOEXEC, 0o600)
        guard fd >= 0 else { throw .storage("cannot create \(path): \(String(cString: strerror(errno)))") }
        created = true
    }

    override func write(_ chunks: [ByteBuffer]) throws(SpoolError) {
        try super.write(chunks)
        try create()
        // One write(2) per chunk: the kernel copies each into the page cache, and nothing copies them before.
        for bytes in chunks {
            let failure: String? = bytes.withUnsafeReadableBytes { raw in
                var offset = 0
                while offset < raw.count {
                    let written = Foundation.write(fd, raw.baseAddress! + offset, raw.count - offset)
                    if written < 0 {
                        if errno == EINTR { continue }
                        return String(cString: strerror(errno))
                    }
                    offset += written
                }
                return nil
            }
            if let failure { throw .storage(failure) }
        }
    }

    /// With a synced directory: the file's bytes, then its name, are on disk before the job record is committed
    /// and answered, so a record never names a document a power loss took away.
    override func finish() throws(SpoolError) -> SpooledDocument {
        defer { closeFile() }
        try create()  // an empty document is still a file
        // An empty document in a spare: the spare's byte goes.
        if reused, count == 0, ftruncate(fd, 0) != 0 { throw .storage("ftruncate: \(String(cString: strerror(errno)))") }
        if let syncedDirectory {
            guard fsync(fd) == 0 else { throw .storage("fsync: \(String(cString: strerror(errno)))") }
            try syncDirectory(syncedDirectory)
        }
        return try super.finish()
    }

    override func discard() {
        closeFile()
        if created, let path { unlink(path) }
    }

    private func closeFile() {
        if fd >= 0 { close(fd) }
        fd = -1
    }

    deinit { closeFile() }
}

/// Removes finished jobs' documents from the spool (as cupsd does with `PreserveJobFiles No`), on the node's blocking
/// threads: the documents of jobs that finish while a removal is under way go together in the next one, so under load
/// many unlinks share one trip to the threads. Confined to the node's loop. Under simulation each removal runs at
/// once, inline.
///
/// A document goes only once the job's record that no longer names it is durable: a crash in between leaves a file
/// no record names (``FileSpool`` removes such files at the next start), never a record naming a file emptied under
/// it. A kill between the two once left a finished job's file cut to its first byte, where the crash campaign found it.
final class DocumentSweeper {
    let node: Node
    /// Removes the files (a file spool keeps them as spares).
    let spool: any DocumentSpool
    /// Its flush says when the records saved so far are durable.
    let store: JobStore
    private var waiting: [String] = []
    private var sweeping = false

    init(node: Node, spool: any DocumentSpool, store: JobStore) {
        self.node = node
        self.spool = spool
        self.store = store
    }

    /// Removes `job`'s document; the job's record stops naming it. The caller saves that record in this same turn
    /// of the loop, and the first sweep starts on the next turn, so that the flush it waits for is asked after the
    /// save and ends with or after the save's commit (writes commit in the order they are made).
    func remove(of job: inout Job) {
        guard let path = job.documentPath else { return }
        job.documentPath = nil
        waiting.append(path)
        guard !sweeping else { return }
        sweeping = true
        let sweeper = NIOLoopBound(self, eventLoop: node.eventLoop)
        node.eventLoop.execute { sweeper.value.sweep() }
    }

    /// Removes what is waiting once every record saved so far is durable; then the next batch, if any (their records
    /// were saved in earlier turns, before this flush).
    private func sweep() {
        let paths = waiting
        waiting = []
        let sweeper = NIOLoopBound(self, eventLoop: node.eventLoop)
        store.flush().flatMap { [node, spool] in node.blocking { spool.remove(paths) } }.whenComplete { [node] result in
            if case .failure(let error) = result { node.trace("spool-error", [("error", "\(error)")]) }
            let sweeper = sweeper.value
            if sweeper.waiting.isEmpty { sweeper.sweeping = false } else { sweeper.sweep() }
        }
    }
}
