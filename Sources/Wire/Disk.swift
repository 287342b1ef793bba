/// A node's disk as its durable stores see it under simulation: files by path, each with what is durable and what
/// only the page cache holds, so that a crash of the node can lose (or tear) what was never synced.
///
/// The simulated wire gives every node one (the `SimulatedDisk` module's); on the live wire a node has none
/// (``Node/disk`` is nil) and stores use the machine's file system, as they always have. The disk has one root:
/// every path names a file in it, whatever its folders (there are none to create or sync).
///
/// A file is reached through a ``DiskFile`` handle from ``open(_:create:boot:)``. A crash ends the node's life (its
/// ``boot`` goes up): a handle from before it fails every later call (``DiskError/Kind/staleHandle``), and so does
/// an open or a delete made for that life, as a process that died with the node can do nothing more to its files (a
/// connection left from it must not write a journal of what it remembered into the node's next life).
public protocol Disk: AnyObject, Sendable {
    /// How many crashes the disk has been through: the life of the node its files are opened in now.
    var boot: Int { get }

    /// Opens `path` for the life `boot`, creating it empty when `create` is set and it does not exist.
    ///
    /// - throws: ``DiskError`` (`.staleHandle` when the node has crashed since `boot`, `.notFound` without `create`,
    ///   `.limit` past the disk's file count).
    func open(_ path: String, create: Bool, boot: Int) throws(DiskError) -> DiskFile

    /// Up to `count` bytes of `file` from `offset`, as its reader sees them (synced or not): fewer at its end.
    func read(_ file: DiskFile, at offset: Int, count: Int) throws(DiskError) -> [UInt8]

    /// Writes `bytes` at `offset` (zeros fill a gap past the end), into the page cache: durable at the next ``sync(_:)``.
    func write(_ file: DiskFile, at offset: Int, _ bytes: [UInt8]) throws(DiskError)

    /// Cuts (or zero-extends) `file` to `size` bytes, in the page cache.
    func truncate(_ file: DiskFile, to size: Int) throws(DiskError)

    /// Makes every change to `file` durable (fsync), and its name with it.
    func sync(_ file: DiskFile) throws(DiskError)

    /// `file`'s size as its reader sees it.
    func size(of file: DiskFile) throws(DiskError) -> Int

    /// Whether a file is at `path`.
    func exists(_ path: String) -> Bool

    /// Every file's path, sorted (a store opening after a crash looks for the leftovers of its last life).
    var paths: [String] { get }

    /// Removes the file at `path` for the life `boot`, durably at once (its name leaves the folder's journal with it).
    ///
    /// - throws: ``DiskError`` `.notFound` when there is none, `.staleHandle` when the node has crashed since `boot`.
    func delete(_ path: String, boot: Int) throws(DiskError)
}

/// An open file of a ``Disk``: its path and the life of the node it was opened in.
public struct DiskFile: Sendable, Hashable {
    /// The file's path on the disk: its name in the disk's one root, folders and all.
    public let path: String
    /// How many crashes the disk had been through when the file was opened.
    public let boot: Int

    /// A handle to the file at `path` opened in the node's life `boot`; a ``Disk`` makes these in ``Disk/open(_:create:boot:)``.
    public init(path: String, boot: Int) {
        self.path = path
        self.boot = boot
    }
}

/// What a ``Disk`` could not do, and why.
public struct DiskError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Which failure it was, for a store to act on (a missing file, a device error, a handle from before a crash, a limit).
    public enum Kind: Sendable, Equatable {
        /// No file at the path.
        case notFound
        /// The device failed the read or write (a fault point fired).
        case ioError
        /// The handle was opened before the node crashed.
        case staleHandle
        /// A size or count limit of the disk would be passed.
        case limit
    }

    /// What went wrong, as a case a store can switch on; `description` says it in words.
    public let kind: Kind
    /// The failure in words, naming the file and the node, for messages.
    public let description: String

    /// A failure of `kind`; `description` names the file and the node, for messages.
    public init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
