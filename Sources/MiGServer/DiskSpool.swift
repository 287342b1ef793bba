import Crypto
import NIOCore
import Wire

/// ``FileSpool`` on a simulated node: each document is a file in the spool directory of the node's simulated
/// ``Wire/Disk``, never the machine's, so a scenario's `spool=DIR` writes nothing outside the run (two seeds of a
/// swarm running side by side cannot meet in it), and a crash of the node keeps exactly what was synced.
///
/// The same steps as the file spool: each chunk written as it arrives, into the page cache; with `syncToDisk`, the
/// file synced (its bytes and its name) before the job's record is committed and answered; a finished job's file
/// deleted once its record no longer names it; at the start, every document file no record names is a crash's
/// leftover and goes. The job's record keeps the document's digest too (a simulated document is small, and the
/// invariants compare what MiG acknowledged with what its disk holds). The page counter holds PDF and PostScript in
/// memory, as with the digest spool: it reads no file.
public struct DiskSpool: DocumentSpool {
    /// The spool's folder on the disk (`spool=DIR`): a prefix of its files' paths, nothing to create.
    public let directory: String
    /// The largest document taken, in bytes: beyond it the upload is refused.
    public let limit: Int64
    /// Whether each document's file is synced before its job is answered (`sync-to-disk=true`).
    public let syncToDisk: Bool
    let disk: any Disk
    /// The node's life the spool was opened in: its files are opened and deleted for that life only, so nothing left
    /// running from before a crash touches the files of the next (the disk refuses it as a stale handle).
    let boot: Int
    /// Documents' files no job named when the spool was opened, removed then.
    public let orphansRemoved: Int

    /// Opens the spool on `disk`. `documents`, the file names the job records name: any other document file is a
    /// crash's leftover (an upload it cut short, or a finished job's file not yet removed) and is removed.
    public init(directory: String, disk: any Disk, limit: Int64, syncToDisk: Bool, documents: Set<String>) throws(SpoolError) {
        self.directory = directory
        self.disk = disk
        self.limit = limit
        self.syncToDisk = syncToDisk
        boot = disk.boot
        var orphans = 0
        for path in disk.paths where path.hasPrefix(directory + "/") {
            let name = String(path.dropFirst(directory.count + 1))
            guard FileSpool.isDocument(name), !documents.contains(name) else { continue }
            do throws(DiskError) { try disk.delete(path, boot: boot) } catch { throw .storage(error.description) }
            orphans += 1
        }
        orphansRemoved = orphans
    }

    /// The writer of document `document` of job `jobID`: its file, `job-ID-N.doc`, is made by the first write.
    public func open(jobID: Int64, document: Int32) throws(SpoolError) -> any DocumentWriter {
        DiskWriter(path: "\(directory)/job-\(jobID)-\(document).doc", disk: disk, boot: boot, limit: limit, syncToDisk: syncToDisk)
    }

    /// The hex SHA-256 of the document file at `path`, as a reader of the disk sees it now.
    func digest(of path: String) throws(DiskError) -> String {
        let file = try disk.open(path, create: false, boot: boot)
        let bytes = try disk.read(file, at: 0, count: try disk.size(of: file))
        return hexString(SHA256.hash(data: bytes))
    }

    /// Deletes the finished documents' files; one already gone (a crash took it) is no error.
    public func remove(_ paths: [String]) {
        for path in paths where disk.exists(path) { try? disk.delete(path, boot: boot) }
    }
}

/// One document going into a ``DiskSpool`` file: counted, limited and hashed as the digest writer does, and appended
/// chunk by chunk.
final class DiskWriter: DigestWriter {
    let disk: any Disk
    /// The node's life the spool was opened in.
    let boot: Int
    let syncToDisk: Bool
    /// The file, from the first write (or the finish of an empty document) on.
    private var file: DiskFile?

    init(path: String, disk: any Disk, boot: Int, limit: Int64, syncToDisk: Bool) {
        self.disk = disk
        self.boot = boot
        self.syncToDisk = syncToDisk
        super.init(limit: limit, path: path, hashes: true)
    }

    private func opened() throws(SpoolError) -> DiskFile {
        if let file { return file }
        do throws(DiskError) {
            let opened = try disk.open(path!, create: true, boot: boot)  // a disk writer always has its path (the init takes one)
            file = opened
            return opened
        } catch {
            throw .storage(error.description)
        }
    }

    override func write(_ chunks: [ByteBuffer]) throws(SpoolError) {
        var offset = Int(count)
        try super.write(chunks)
        let file = try opened()
        for chunk in chunks {
            do throws(DiskError) { try disk.write(file, at: offset, Array(chunk.readableBytesView)) } catch { throw .storage(error.description) }
            offset += chunk.readableBytes
        }
    }

    /// With sync-to-disk the file's bytes and name are durable before the job's record is committed and answered.
    override func finish() throws(SpoolError) -> SpooledDocument {
        let file = try opened()  // an empty document is still a file
        if syncToDisk {
            do throws(DiskError) { try disk.sync(file) } catch { throw .storage(error.description) }
        }
        return try super.finish()
    }

    /// Deletes what was written (after a crash the file is no longer this writer's to delete: the disk refuses).
    override func discard() {
        if file != nil, let path, disk.exists(path) { try? disk.delete(path, boot: boot) }
        file = nil
    }
}

extension PlantedBug {
    /// With sync-to-disk, MiG syncs a job's record before it answers but leaves the document's file to the OS: a crash
    /// after the answer keeps a record that names a file the disk lost.
    public static let migDocumentLeftUnsynced = PlantedBug("mig.document-left-unsynced")
}
