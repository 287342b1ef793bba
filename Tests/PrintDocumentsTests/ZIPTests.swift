import PrintDocuments
import Testing

@Suite struct ZIPTests {
    @Test func storedAndDeflatedEntriesRoundTrip() throws {
        let text = Array(String(repeating: "Workbench prints documents. ", count: 500).utf8)
        let binary = (0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 2_654_435_761 >> 7) }
        var writer = ZIPWriter()
        writer.add("a/text.txt", text, compress: true)
        writer.add("b/binary.bin", binary, compress: false)
        writer.add("ünïcode name.xml", [], compress: true)
        let archive = writer.finish()
        let reader = try ZIPReader(archive)
        #expect(reader.entryNames == ["a/text.txt", "b/binary.bin", "ünïcode name.xml"])
        #expect(try reader.contents(of: "a/text.txt", limit: 1 << 20) == text)
        #expect(try reader.contents(of: "b/binary.bin", limit: 1 << 20) == binary)
        #expect(try reader.contents(of: "ünïcode name.xml", limit: 10) == [])
        #expect(try reader.contents(of: "missing", limit: 10) == nil)
        #expect(archive.count < text.count, "deflate compresses repetitive text")
    }

    @Test func archivesAreDeterministicAndDatedTheFirstDOSDay() {
        var first = ZIPWriter()
        var second = ZIPWriter()
        first.add("x", [1, 2, 3], compress: true)
        second.add("x", [1, 2, 3], compress: true)
        let archive = first.finish()
        #expect(archive == second.finish())
        #expect(archive[10] == 0 && archive[11] == 0 && archive[12] == 0x21 && archive[13] == 0, "00:00, 1980-01-01")
    }

    @Test func dataInFrontOfTheArchiveIsTolerated() throws {
        var writer = ZIPWriter()
        writer.add("inside", Array("payload".utf8), compress: true)
        let reader = try ZIPReader(Array("#!/bin/sh self-extracting stub\n".utf8) + writer.finish())
        #expect(try reader.contents(of: "inside", limit: 100) == Array("payload".utf8))
    }

    @Test func zipBombsStopAtTheLimit() throws {
        // Honest header: 5 MiB of spaces is refused before inflating.
        var writer = ZIPWriter()
        writer.add("docProps/app.xml", [UInt8](repeating: 0x20, count: 5 << 20), compress: true)
        var archive = writer.finish()
        #expect(archive.count < 20_000)
        #expect {
            try ZIPReader(archive).contents(of: "docProps/app.xml", limit: DocumentLimits.maximumMetadataBytes)
        } throws: { error in
            (error as? DocumentError)?.message == "ZIP entry docProps/app.xml inflates to 5242880 bytes; the limit is 4194304"
        }
        // Lying header: it claims 100 bytes in both headers; inflating stops there.
        for offset in [22, archive.count - 22 - 46 - 16 + 24] {
            archive[offset] = 100
            archive[offset + 1] = 0
            archive[offset + 2] = 0
            archive[offset + 3] = 0
        }
        #expect(throws: DocumentError.self) { try ZIPReader(archive).contents(of: "docProps/app.xml", limit: DocumentLimits.maximumMetadataBytes) }
    }

    @Test func damagedDataFailsItsChecksum() throws {
        var writer = ZIPWriter()
        writer.add("entry", Array("some stored data".utf8), compress: false)
        var archive = writer.finish()
        archive[30 + 5 + 2] ^= 0xFF  // a byte of the stored data
        #expect {
            try ZIPReader(archive).contents(of: "entry", limit: 100)
        } throws: { error in
            (error as? DocumentError)?.message == "ZIP entry entry fails its CRC-32 check: the archive is damaged"
        }
    }

    @Test func hostileDirectoriesAreRefusedWithReasons() {
        #expect(throws: DocumentError.self) { try ZIPReader([]) }
        #expect(throws: DocumentError.self) { try ZIPReader(Array("definitely not a zip archive at all".utf8)) }
        // An end record claiming 60,000 entries in a 22-byte directory.
        var claims: [UInt8] = [0x50, 0x4B, 0x05, 0x06, 0, 0, 0, 0, 0x60, 0xEA, 0x60, 0xEA, 22, 0, 0, 0, 0, 0, 0, 0, 0, 0]
        #expect {
            try ZIPReader(claims)
        } throws: { error in
            (error as? DocumentError)?.message == "ZIP archive with 60000 entries; the limit is 10000"
        }
        // ZIP64 markers.
        claims[8] = 0xFF
        claims[9] = 0xFF
        claims[10] = 0xFF
        claims[11] = 0xFF
        #expect(throws: DocumentError.self) { try ZIPReader(claims) }
        // A directory that points past itself.
        claims = [0x50, 0x4B, 0x05, 0x06, 0, 0, 0, 0, 1, 0, 1, 0, 46, 0, 0, 0, 0xFF, 0xFF, 0, 0, 0, 0]
        #expect(throws: DocumentError.self) { try ZIPReader(claims) }
    }

    @Test func truncatedArchivesHaveNoEndRecord() {
        var writer = ZIPWriter()
        writer.add("a", [UInt8](repeating: 7, count: 1000), compress: false)
        let archive = writer.finish()
        for length in [0, 10, 500, archive.count - 1] {
            #expect(throws: DocumentError.self) { try ZIPReader(Array(archive.prefix(length))) }
        }
    }
}
