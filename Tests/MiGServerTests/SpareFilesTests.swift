import Foundation
import NIOCore
import Testing

@testable import MiGServer

/// A file spool keeps finished documents' files, emptied, as the next documents' files (no new inode per job).
@Suite struct SpareFilesTests {
    static func directory() -> String { FileManager.default.temporaryDirectory.appendingPathComponent("spares-\(UUID().uuidString)").path }

    static func store(_ text: String, job: Int64, in spool: FileSpool) throws -> String {
        let writer = try spool.open(jobID: job, document: 1)
        try writer.write(ByteBuffer(string: text))
        return try #require(try writer.finish().path)
    }

    static func inode(_ path: String) throws -> Int? {
        (try FileManager.default.attributesOfItem(atPath: path)[.systemFileNumber] as? NSNumber)?.intValue
    }

    static func names(_ directory: String) throws -> [String] { try FileManager.default.contentsOfDirectory(atPath: directory).sorted() }

    @Test func aFinishedDocumentsFileIsEmptiedAndBecomesTheNextDocumentsFile() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spool = try FileSpool(directory: directory, limit: 1 << 20)
        let first = try Self.store("the first job's document, longer than the second's", job: 1, in: spool)
        let inode = try Self.inode(first)
        spool.remove([first])
        #expect(!FileManager.default.fileExists(atPath: first), "the finished document's name is gone")
        let spares = try Self.names(directory)
        #expect(spares.count == 1 && SpareFiles.isSpare(spares[0]), "\(spares)")
        #expect(try Data(contentsOf: URL(fileURLWithPath: "\(directory)/\(spares[0])")) == Data([0]), "its bytes do not outlive the job")
        let second = try Self.store("short", job: 2, in: spool)
        #expect(try Self.inode(second) == inode, "the next document took the spare's inode")
        #expect(try String(contentsOfFile: second, encoding: .utf8) == "short", "nothing of the first document is left in it")
        #expect(try Self.names(directory) == ["job-2-1.doc"])
        spool.remove([second])
        let empty = try Self.store("", job: 3, in: spool)
        #expect(try Self.inode(empty) == inode)
        #expect(try Data(contentsOf: URL(fileURLWithPath: empty)).isEmpty, "an empty document in a spare is empty")
    }

    @Test func atMostSoManyAreKeptAndARestartDropsThem() throws {
        let directory = Self.directory()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let spool = try FileSpool(directory: directory, limit: 1 << 20)
        let paths = try (1...Int64(SpareFiles.most + 6)).map { try Self.store("job \($0)", job: $0, in: spool) }
        spool.remove(paths)
        #expect(spool.spares.count == SpareFiles.most)
        #expect(try Self.names(directory).filter(SpareFiles.isSpare).count == SpareFiles.most, "the rest were removed")
        #expect(try Self.names(directory).allSatisfy(SpareFiles.isSpare), "no finished document keeps its name")
        spool.remove(["\(directory)/job-999-1.doc"])  // already gone: nothing to keep, nothing fails
        #expect(spool.spares.count == SpareFiles.most)
        let restarted = try FileSpool(directory: directory, limit: 1 << 20)
        #expect(try Self.names(directory).isEmpty, "spares a previous run left are removed")
        #expect(restarted.spares.count == 0)
        let fresh = try Self.store("new", job: 1, in: restarted)
        #expect(try String(contentsOfFile: fresh, encoding: .utf8) == "new")
    }
}
