import Foundation
import GRDB
import IPP
import Kernel
import Testing
import Wire

@testable import MiGServer

/// The job log binds a job's row by hand (`Job.row`, `Job.columns`), and reads it back through `Decodable`: the two
/// must agree column for column, or a restart would bring back jobs other than the ones logged.
@Suite struct JobRowTests {
    /// A job whose every field holds a value no other field holds, so that two columns swapped cannot read back equal.
    static let job = Job(
        id: 7, name: "report.pdf", user: "alice", stateValue: IPPJobState.processing.rawValue, reasonList: "job-printing",
        format: "application/pdf", compression: "gzip", copies: 3, sides: "two-sided-long-edge", media: "iso_a4_210x297mm",
        pageRanges: "1-3,5-5", documentBytes: 123_456, documentDigest: "d1g35t", documentPath: "/spool/job-7-1.doc",
        documentCount: 2, awaitingDocuments: true, impressions: 11, impressionsCompleted: 4, template: Data([0x01, 0x02, 0x03]),
        pages: 13, createdAt: 1_700_000_001, processingAt: 1_700_000_002, completedAt: 1_700_000_003)

    /// The fields as text, to compare two jobs (a `Job` is not `Equatable`).
    static func fields(_ job: Job) -> String { "\(job)" }

    /// An empty log in memory.
    static func store() throws -> JobStore { try JobStore(path: nil, syncToDisk: false, node: Kernel(seed: 1).node("mig")) }

    @Test func theColumnsAreTheTablesInTheirOrder() throws {
        let store = try Self.store()
        let names = try store.database.readBlocking { db in try db.columns(in: Job.databaseTableName).map(\.name) }
        #expect(Set(Job.columns) == Set(names), "every column of the table is bound, and no other")
        #expect(Set(Job.columns).count == Job.columns.count, "no column twice")
        #expect(Job.columns.first == "id", "the update binds the id last, taken from the first place")
        #expect(Self.job.row.count == Job.columns.count)
    }

    @Test func aRowWrittenReadsBackTheSameJob() throws {
        let store = try Self.store()
        var changed = Self.job
        changed.stateValue = IPPJobState.completed.rawValue
        changed.reasonList = "job-completed-successfully"
        changed.impressionsCompleted = 11
        changed.documentPath = nil
        changed.processingAt = nil
        let (inserted, updated) = try store.database.writeBlocking { db in
            try Self.job.insertRow(db)
            let inserted = try Job.fetchOne(db, key: 7)
            try changed.updateRow(db)
            return (inserted, try Job.fetchOne(db, key: 7))
        }
        #expect(inserted.map(Self.fields) == Self.fields(Self.job))
        #expect(inserted?.template == Self.job.template, "a Data prints as its size only")
        #expect(updated.map(Self.fields) == Self.fields(changed), "an update writes every column, nil ones included")
    }

    @Test func updatingAJobTheLogDoesNotHoldFails() throws {
        let store = try Self.store()
        #expect(throws: RecordError.self) { try store.database.writeBlocking { db in try Self.job.updateRow(db) } }
    }
}
