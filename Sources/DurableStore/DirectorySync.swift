import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// fsync of a file's folder: SQLite syncs the folder when it creates the WAL, not when it creates the database file
/// itself, whose name a power loss could otherwise take with everything committed in it.
enum DirectorySync {
    static func sync(folderOf path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let fd = open(directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { throw DurableDatabaseError("cannot open \(directory): \(String(cString: strerror(errno)))") }
        defer { close(fd) }
        guard fsync(fd) == 0 else { throw DurableDatabaseError("fsync of \(directory): \(String(cString: strerror(errno)))") }
    }
}
