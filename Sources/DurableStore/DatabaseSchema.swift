import GRDB
import Synchronization

/// A store's schema: the migrator that makes or upgrades its database, and, once it has been needed, an empty
/// in-memory database it made, which later in-memory databases are copied from.
///
/// Why the copy: a simulation opens a fresh in-memory store for every actor of every seed, and running the
/// migrations (GRDB's bookkeeping, then SQLite parsing and executing each `CREATE`) took a twentieth of a swarm's
/// time; SQLite's backup of the few pages of an empty database costs a small part of that. The copy is the
/// migrated database page for page (its `grdb_migrations` rows included), so a store cannot tell the two apart.
///
/// Declare one per store type (`static let schema = DatabaseSchema(…)`), so the template is made once per process.
public final class DatabaseSchema: Sendable {
    public let migrator: DatabaseMigrator
    /// The migrated empty database, made on first use and never written after: only read, by backups.
    private let template = Mutex<DatabaseQueue?>(nil)

    public init(_ migrator: DatabaseMigrator) {
        self.migrator = migrator
    }

    /// A new in-memory database holding the migrated, empty schema.
    ///
    /// - throws: GRDB's errors.
    public func emptyMemoryDatabase() throws -> DatabaseQueue {
        let source = try template.withLock { template throws -> DatabaseQueue in
            if let template { return template }
            let made = try DatabaseQueue()
            try migrator.migrate(made)
            template = made
            return made
        }
        let database = try DatabaseQueue()
        try source.backup(to: database)
        return database
    }
}
