import GRDB
import GRDBSQLite
import Synchronization

/// Checkpoints an on-disk database's WAL on a connection of its own, so no commit waits for one.
///
/// SQLite checkpoints in the connection that commits, inside the commit that takes the WAL past 1,000 pages: that
/// commit's writers wait for the database file to be written and synced (`bench mig` saw such a sync take 43 ms on a
/// loaded disk), and every answer behind them too. Here the writer's WAL hook (which replaces SQLite's automatic
/// checkpoint) only notes the WAL's size after each commit; past ``threshold`` pages it hands a PASSIVE checkpoint to
/// a second connection, on GRDB's own queue, while commits go on. Durability is SQLite's either way: a checkpoint only
/// copies committed pages into the database file, with the same `synchronous` setting as the writer.
final class WALCheckpoints: Sendable {
    /// WAL pages after which a checkpoint starts (SQLite's automatic checkpoint uses the same).
    static let threshold: Int32 = 1_000

    private let connection: DatabaseQueue
    private let scheduled = Atomic(false)

    /// Opens the checkpointing connection (`configuration` sets the writer's `synchronous`).
    init(path: String, configuration: Configuration) throws {
        connection = try DatabaseQueue(path: path, configuration: configuration)
        // Opens the connection's WAL descriptor now rather than at the first checkpoint, under load (`bench load`
        // counts serve's descriptors before and after). A read opens it; a checkpoint here would fail at once with
        // "database is locked" whenever another connection checkpoints (PASSIVE never waits), as the last
        // connection of a server that is being restarted does as it closes.
        _ = try connection.read { db in try Int.fetchOne(db, sql: "SELECT COUNT(*) FROM sqlite_master") }
    }

    /// Takes over checkpointing from `writer`, the pool's writer connection (from `writeWithoutTransaction`).
    func install(on writer: Database) {
        // The hook's context outlives this object (the writer may commit once more while the database is being
        // released): a weak box of a few bytes per database, never freed.
        let box = Unmanaged.passRetained(WeakBox(self)).toOpaque()
        sqlite3_wal_hook(
            writer.sqliteConnection,
            { context, _, _, pages in
                Unmanaged<WeakBox>.fromOpaque(context!).takeUnretainedValue().target?.committed(walPages: pages)
                return SQLITE_OK
            }, box)
    }

    /// After a commit, on the writer's thread: starts a checkpoint if the WAL is long and none is under way.
    private func committed(walPages: Int32) {
        guard walPages >= Self.threshold, !scheduled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        connection.asyncWriteWithoutTransaction { [weak self] db in
            // Readers still on older pages can make a checkpoint stop short: the next commit past the threshold
            // tries again, as SQLite's own would.
            _ = try? db.checkpoint(.passive)
            self?.scheduled.store(false, ordering: .releasing)
        }
    }

    private final class WeakBox: @unchecked Sendable {
        weak var target: WALCheckpoints?
        init(_ target: WALCheckpoints) { self.target = target }
    }
}
