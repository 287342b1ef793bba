import Foundation
import SFTP
import Testing

@Suite struct SFTPCodecTests {
    static let attributes = SFTPFileAttributes(
        size: 46_617_390, uid: 1000, gid: 1000, permissions: 0o100644, accessTime: 7, modificationTime: 9,
        extended: [SFTPExtensionPair(name: "x@example.com", data: [1, 2])])

    static let every: [SFTPMessage] = [
        .initialize(version: 3, extensions: []),
        .version(version: 3, extensions: [SFTPExtensionPair(name: "posix-rename@openssh.com", data: Array("1".utf8))]),
        .open(id: 1, path: "socPrint/source.pptx", flags: [.write, .create, .truncate], attributes: SFTPFileAttributes(permissions: 0o644)),
        .close(id: 2, handle: [0, 0, 0, 1]),
        .read(id: 3, handle: [0, 0, 0, 1], offset: 1 << 33, length: 32_768),
        .write(id: 4, handle: [0, 0, 0, 1], offset: 65_536, data: Array(repeating: 0xAB, count: 32_768)),
        .lstat(id: 5, path: "a"), .fstat(id: 6, handle: [9]), .setstat(id: 7, path: "a", attributes: attributes),
        .fsetstat(id: 8, handle: [9], attributes: SFTPFileAttributes()), .opendir(id: 9, path: "."), .readdir(id: 10, handle: [1]),
        .remove(id: 11, path: "x"), .mkdir(id: 12, path: "socPrint", attributes: SFTPFileAttributes(permissions: 0o755)),
        .rmdir(id: 13, path: "d"), .realpath(id: 14, path: "."), .stat(id: 15, path: "é ü"),
        .rename(id: 16, oldPath: "a", newPath: "b"), .readlink(id: 17, path: "l"), .symlink(id: 18, linkPath: "l", targetPath: "t"),
        .status(id: 19, code: .failure, message: "Disk quota exceeded", languageTag: "en"),
        .handle(id: 20, handle: [0, 0, 0, 2]), .data(id: 21, data: [1, 2, 3]),
        .name(id: 22, entries: [SFTPNameEntry(filename: "f", longname: "-rw-r--r-- f", attributes: attributes)]),
        .attrs(id: 23, attributes: attributes), .extended(id: 24, request: "statvfs@openssh.com", data: [0, 0, 0, 1, 0x2F]),
        .extendedReply(id: 25, data: [7]), .unknown(type: 99, id: 26, payload: [1, 2]),
    ]

    @Test func initAndStatusHaveTheDraftsExactBytes() throws {
        #expect(SFTPMessage.initialize(version: 3, extensions: []).encoded == [0, 0, 0, 5, 1, 0, 0, 0, 3])
        let status = SFTPMessage.status(id: 7, code: .eof, message: "End", languageTag: "").encoded
        #expect(status == [0, 0, 0, 20, 101, 0, 0, 0, 7, 0, 0, 0, 1, 0, 0, 0, 3] + Array("End".utf8) + [0, 0, 0, 0])
        let open = SFTPMessage.open(id: 1, path: "x", flags: [.write, .create, .truncate], attributes: SFTPFileAttributes()).encoded
        #expect(open == [0, 0, 0, 18, 3, 0, 0, 0, 1, 0, 0, 0, 1, 0x78, 0, 0, 0, 0x1A, 0, 0, 0, 0])
    }

    @Test func everyMessageRoundTrips() throws {
        for message in Self.every {
            #expect(try SFTPPacketDecoder.decode(packet: message.encoded) == message, "\(message.typeName)")
        }
    }

    @Test func theStreamDecoderGivesTheSameMessagesWhateverTheSplits() throws {
        var stream: [UInt8] = []
        for message in Self.every { message.encode(into: &stream) }
        for step in [1, 7, 4096, stream.count] {
            var decoder = SFTPPacketDecoder()
            var decoded: [SFTPMessage] = []
            var offset = 0
            while offset < stream.count {
                decoder.append(stream[offset..<min(stream.count, offset + step)])
                offset += step
                while let message = try decoder.next() { decoded.append(message) }
            }
            #expect(decoded == Self.every, "fed \(step) bytes at a time")
            #expect(decoder.bufferedByteCount == 0)
        }
    }

    @Test func oldServersStatusWithoutMessageIsAccepted() throws {
        #expect(
            try SFTPPacketDecoder.decode(packet: [0, 0, 0, 9, 101, 0, 0, 0, 1, 0, 0, 0, 0]) == .status(id: 1, code: .ok, message: "", languageTag: "")
        )
    }

    @Test func hostileInputGetsPreciseErrorsAndTheStreamStaysBroken() {
        func error(_ bytes: [UInt8]) -> SFTPDecodingError? {
            do {
                _ = try SFTPPacketDecoder.decode(packet: bytes)
                return nil
            } catch { return error }
        }
        #expect(error([0x00, 0x10, 0x00, 0x01])?.kind == .packetTooLarge)
        #expect(error([0, 0, 0, 0])?.kind == .packetTooShort)
        #expect(error([0, 0, 0, 9, 3, 0, 0, 0, 1, 0, 0, 0, 9])?.message == "truncated SSH_FXP_OPEN: field 'filename' needs 9 bytes, 0 remain")
        #expect(error([0, 0, 0, 10, 13, 0, 0, 0, 1, 0, 0, 0, 1, 0xFF])?.kind == .invalidUTF8)
        #expect(error([0, 0, 0, 10, 4, 0, 0, 0, 1, 0, 0, 0, 0, 9])?.kind == .trailingBytes)
        #expect(error([0, 0, 0, 13, 104, 0, 0, 0, 1, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0])?.kind == .tooManyEntries)
        var decoder = SFTPPacketDecoder()
        decoder.append([0xFF, 0xFF, 0xFF, 0xFF])
        #expect(throws: SFTPDecodingError.self) { try decoder.next() }
        decoder.append(SFTPMessage.initialize(version: 3, extensions: []).encoded)
        #expect(throws: SFTPDecodingError.self) { try decoder.next() }
    }

    @Test func longnamesLookLikeOpenSSHs() {
        let now: UInt32 = 1_767_225_600 + 86_400 * 30
        let recent = SFTPFileAttributes(size: 297_000, permissions: 0o100644, modificationTime: 1_767_225_600 + 3600 * 5 + 60 * 7)
        #expect(
            SFTPNameEntry.longname(filename: "notes.pdf", attributes: recent, owner: "demo", group: "demo", now: now)
                == "-rw-r--r--    1 demo     demo       297000 Jan 01 05:07 notes.pdf".replacingOccurrences(of: "Jan 01", with: "Jan  1"))
        let old = SFTPFileAttributes(size: 0, permissions: 0o040755, modificationTime: 0)
        #expect(
            SFTPNameEntry.longname(filename: "d", attributes: old, owner: "demo", group: "demo", now: now)
                == "drwxr-xr-x    1 demo     demo            0 Jan  1  1970 d")
    }
}
