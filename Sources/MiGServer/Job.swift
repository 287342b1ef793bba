import Foundation
import GRDB
import IPP

/// One print job as MiG keeps it in its spool database.
///
/// Times are Unix seconds on the printer's clock (as CUPS and ippeveprinter report them), so they stay
/// meaningful across a restart.
public struct Job: Sendable, Decodable, FetchableRecord, TableRecord {
    public static let databaseTableName = "job"

    /// Given by the store when it keeps the job (``JobStore/insert(_:)``): a job exists only once it is stored.
    public let id: Int64
    public var name: String
    /// The authenticated account that submitted it (`job-originating-user-name`).
    public var user: String
    public var stateValue: Int32
    /// `job-state-reasons` keywords, space-separated.
    public var reasonList: String
    public var format: String
    public var compression: String
    public var copies: Int32
    public var sides: String
    public var media: String
    /// `page-ranges` as `1-3,5-5`, empty for all pages.
    public var pageRanges: String
    public var documentBytes: Int64
    /// SHA-256 of the document as received (hex), when only the digest is kept (simulation).
    public var documentDigest: String?
    /// Where the document lies in the spool (live wire); nil when only its digest is kept (simulation).
    public var documentPath: String?
    public var documentCount: Int32
    /// Create-Job jobs wait for Send-Document with last-document=true (or Close-Job).
    public var awaitingDocuments: Bool
    public var impressions: Int32
    public var impressionsCompleted: Int32
    /// The other job-template attributes the job accepted (print-color-mode, job-hold-until, print-quality…), as
    /// an IPP job group (`JobTemplate`): Get-Job-Attributes reports each exactly as it was accepted.
    public var template: Data?
    /// Pages of the document, counted from its content; nil when it was not (then its size estimates them).
    public var pages: Int32?
    public var createdAt: Int64
    public var processingAt: Int64?
    public var completedAt: Int64?
    /// The format MiG recognised a document sent as `application/octet-stream` as (`document-format-detected`);
    /// nil when the client declared one, or before the document has arrived.
    public var formatDetected: String? = nil

    public var state: IPPJobState {
        get { IPPJobState(rawValue: stateValue) ?? .aborted }
        set { stateValue = newValue.rawValue }
    }

    public var reasons: [String] {
        get { reasonList.isEmpty ? ["none"] : reasonList.split(separator: " ").map(String.init) }
        set { reasonList = newValue.filter { $0 != "none" }.joined(separator: " ") }
    }
}

extension Job {
    /// Every column of the job table, in the order ``row`` binds them, `id` first.
    ///
    /// MiG logs a job's row on every change of state, several times a job. Through `Codable` and GRDB's persistence
    /// methods each write encoded the record through an `Encoder` and built its statement's SQL again, which cost
    /// more than SQLite's own work on the commit. So the log binds the row itself, to statements written once: that
    /// took 5-9 % off serve's CPU per Print-Job in `bench mig`. Reading back (after a restart) goes through
    /// `Decodable`: `JobRowTests` checks that what is written reads back the same, and that this list is the table's.
    static let columns = [
        "id", "name", "user", "stateValue", "reasonList", "format", "compression", "copies", "sides", "media", "pageRanges",
        "documentBytes", "documentDigest", "documentPath", "documentCount", "awaitingDocuments", "impressions",
        "impressionsCompleted", "template", "pages", "createdAt", "processingAt", "completedAt", "formatDetected",
    ]

    /// The row's values, in the order of ``columns``.
    var row: [(any DatabaseValueConvertible)?] {
        [
            id, name, user, stateValue, reasonList, format, compression, copies, sides, media, pageRanges, documentBytes,
            documentDigest, documentPath, documentCount, awaitingDocuments, impressions, impressionsCompleted, template,
            pages, createdAt, processingAt, completedAt, formatDetected,
        ]
    }

    static let insertSQL =
        "INSERT INTO \(databaseTableName) (\(columns.joined(separator: ", "))) VALUES (\(columns.map { _ in "?" }.joined(separator: ", ")))"

    static let updateSQL =
        "UPDATE \(databaseTableName) SET \(columns.dropFirst().map { "\($0) = ?" }.joined(separator: ", ")) WHERE id = ?"

    /// Adds the job (its id already given by the store) to the log.
    func insertRow(_ db: Database) throws {
        try db.cachedStatement(sql: Self.insertSQL).execute(arguments: StatementArguments(row))
    }

    /// Writes the job's row over the one with its id; like GRDB's `update`, fails when no row has that id.
    func updateRow(_ db: Database) throws {
        let values = row
        try db.cachedStatement(sql: Self.updateSQL).execute(arguments: StatementArguments(values.dropFirst() + [values[0]]))
        guard db.changesCount == 1 else {
            throw RecordError.recordNotFound(databaseTableName: Self.databaseTableName, key: ["id": id.databaseValue])
        }
    }
}

/// A MiG account: who may print, and whether a forwarded client certificate is required.
public struct Account: Sendable, Codable, FetchableRecord, PersistableRecord {
    public static let databaseTableName = "account"

    public var user: String
    /// Hex SHA-256 of `salt + password`: the spool database never holds passwords.
    public var passwordDigest: String
    public var salt: String
    public var requiresClientCertificate: Bool
}

extension Account {
    /// Whether `password` is this account's password.
    public func accepts(password: String) -> Bool { passwordDigest == JobStore.digest(salt + password) }
}
