/// Why bytes are not an SFTP packet. Once a stream has produced one, it stays broken: OpenSSH's sftp-server ends
/// the session on a bad packet, and so should any peer of this codec.
public struct SFTPDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    public enum Kind: Hashable, Sendable {
        case packetTooLarge, packetTooShort, truncatedField, trailingBytes, invalidUTF8, tooManyEntries, unknownAttributeFlags
    }

    public let kind: Kind
    /// Offset of the problem inside the packet (0 = its length field).
    public let offset: Int
    public let message: String

    public var description: String { message }

    init(_ kind: Kind, at offset: Int, _ message: String) {
        self.kind = kind
        self.offset = offset
        self.message = message
    }
}

/// Splits a byte stream into SFTP packets and decodes them, with a bound on packet size.
///
/// Feed bytes as they arrive with ``append(_:)``; ``next()`` returns a message once one is whole. Consumed bytes are
/// released as the stream moves on, so a long upload through it does not grow memory.
public struct SFTPPacketDecoder: Sendable {
    /// OpenSSH's limit (SFTP_MAX_MSG_LENGTH, 256 KiB) plus room for a WRITE's header.
    public static let defaultMaximumPacketLength = 256 * 1024 + 1024
    /// NAME answers larger than this many entries are refused.
    public static let maximumNameEntries = 10_000
    /// INIT/VERSION and attribute extension pairs.
    public static let maximumExtensions = 64

    public let maximumPacketLength: Int
    private var buffer: [UInt8] = []
    private var start = 0
    private var failure: SFTPDecodingError?

    public init(maximumPacketLength: Int = SFTPPacketDecoder.defaultMaximumPacketLength) {
        self.maximumPacketLength = maximumPacketLength
    }

    public mutating func append<Bytes: Collection<UInt8>>(_ bytes: Bytes) {
        if start > 0, start >= buffer.count / 2 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        buffer.append(contentsOf: bytes)
    }

    /// Bytes received but not yet decoded.
    public var bufferedByteCount: Int { buffer.count - start }

    /// The next whole message, or nil when more bytes are needed.
    public mutating func next() throws(SFTPDecodingError) -> SFTPMessage? {
        if let failure { throw failure }
        guard buffer.count - start >= 4 else { return nil }
        let length = Int(buffer[start]) << 24 | Int(buffer[start + 1]) << 16 | Int(buffer[start + 2]) << 8 | Int(buffer[start + 3])
        guard length <= maximumPacketLength else {
            let error = SFTPDecodingError(.packetTooLarge, at: 0, "SFTP packet of \(length) bytes exceeds the limit of \(maximumPacketLength) bytes")
            failure = error
            throw error
        }
        guard buffer.count - start >= 4 + length else { return nil }
        let body = buffer[(start + 4)..<(start + 4 + length)]
        do {
            let message = try Self.decodeBody(body)
            start += 4 + length
            return message
        } catch {
            failure = error
            throw error
        }
    }

    /// Decodes one whole packet, its length field included; the bytes must hold exactly that packet.
    public static func decode(packet: [UInt8], maximumPacketLength: Int = defaultMaximumPacketLength) throws(SFTPDecodingError) -> SFTPMessage {
        var decoder = SFTPPacketDecoder(maximumPacketLength: maximumPacketLength)
        decoder.append(packet)
        guard let message = try decoder.next() else {
            throw SFTPDecodingError(
                .truncatedField, at: packet.count,
                packet.count < 4
                    ? "truncated SFTP packet: \(packet.count) bytes, the length field needs 4"
                    : "truncated SFTP packet: the length field announces more than the \(packet.count - 4) bytes present")
        }
        guard decoder.bufferedByteCount == 0 else {
            throw SFTPDecodingError(
                .trailingBytes, at: packet.count - decoder.bufferedByteCount,
                "\(decoder.bufferedByteCount) bytes follow the SFTP packet")
        }
        return message
    }

    private static func decodeBody(_ body: ArraySlice<UInt8>) throws(SFTPDecodingError) -> SFTPMessage {
        var reader = FieldReader(body)
        guard let type = reader.byte() else {
            throw SFTPDecodingError(.packetTooShort, at: 4, "SFTP packet of 0 bytes: expected at least a type byte")
        }
        let name = SFTPPacketType(rawValue: type)?.description ?? "packet type \(type)"
        reader.packetName = name
        let message: SFTPMessage
        switch type {
        case 1, 2:
            let version = try reader.uint32("version")
            var extensions: [SFTPExtensionPair] = []
            while !reader.isAtEnd {
                guard extensions.count < maximumExtensions else {
                    throw SFTPDecodingError(.tooManyEntries, at: reader.offset, "\(name) has more than \(maximumExtensions) extensions")
                }
                extensions.append(SFTPExtensionPair(name: try reader.string("extension name"), data: try reader.bytes("extension data")))
            }
            return type == 1 ? .initialize(version: version, extensions: extensions) : .version(version: version, extensions: extensions)
        default:
            break
        }
        guard let id = try? reader.uint32("request id") else {
            throw SFTPDecodingError(.packetTooShort, at: 5, "\(name) of \(body.count) bytes is too short to hold its request id")
        }
        switch type {
        case 3:
            message = .open(
                id: id, path: try reader.string("filename"), flags: SFTPOpenFlags(rawValue: try reader.uint32("pflags")),
                attributes: try reader.attributes())
        case 4: message = .close(id: id, handle: try reader.bytes("handle"))
        case 5: message = .read(id: id, handle: try reader.bytes("handle"), offset: try reader.uint64("offset"), length: try reader.uint32("len"))
        case 6: message = .write(id: id, handle: try reader.bytes("handle"), offset: try reader.uint64("offset"), data: try reader.bytes("data"))
        case 7: message = .lstat(id: id, path: try reader.string("path"))
        case 8: message = .fstat(id: id, handle: try reader.bytes("handle"))
        case 9: message = .setstat(id: id, path: try reader.string("path"), attributes: try reader.attributes())
        case 10: message = .fsetstat(id: id, handle: try reader.bytes("handle"), attributes: try reader.attributes())
        case 11: message = .opendir(id: id, path: try reader.string("path"))
        case 12: message = .readdir(id: id, handle: try reader.bytes("handle"))
        case 13: message = .remove(id: id, path: try reader.string("filename"))
        case 14: message = .mkdir(id: id, path: try reader.string("path"), attributes: try reader.attributes())
        case 15: message = .rmdir(id: id, path: try reader.string("path"))
        case 16: message = .realpath(id: id, path: try reader.string("path"))
        case 17: message = .stat(id: id, path: try reader.string("path"))
        case 18: message = .rename(id: id, oldPath: try reader.string("oldpath"), newPath: try reader.string("newpath"))
        case 19: message = .readlink(id: id, path: try reader.string("path"))
        case 20: message = .symlink(id: id, linkPath: try reader.string("linkpath"), targetPath: try reader.string("targetpath"))
        case 101:
            let code = SFTPStatusCode(rawValue: try reader.uint32("error code"))
            // Old servers end STATUS after the code, or after the message: both fields are optional on read.
            let text = reader.isAtEnd ? "" : try reader.string("error message")
            let language = reader.isAtEnd ? "" : try reader.string("language tag")
            message = .status(id: id, code: code, message: text, languageTag: language)
        case 102: message = .handle(id: id, handle: try reader.bytes("handle"))
        case 103: message = .data(id: id, data: try reader.bytes("data"))
        case 104:
            let count = try reader.uint32("count")
            // Each entry needs at least 12 bytes (two empty strings and a flags word): a count beyond that is a lie.
            guard count <= maximumNameEntries, Int(count) * 12 <= reader.remaining else {
                throw SFTPDecodingError(
                    .tooManyEntries, at: reader.offset,
                    "\(name) announces \(count) entries; its \(reader.remaining) bytes hold at most \(reader.remaining / 12) (limit \(maximumNameEntries))"
                )
            }
            var entries: [SFTPNameEntry] = []
            for _ in 0..<count {
                entries.append(
                    SFTPNameEntry(
                        filename: try reader.string("filename"), longname: try reader.string("longname"),
                        attributes: try reader.attributes()))
            }
            message = .name(id: id, entries: entries)
        case 105: message = .attrs(id: id, attributes: try reader.attributes())
        case 200: message = .extended(id: id, request: try reader.string("extended-request"), data: reader.rest())
        case 201: message = .extendedReply(id: id, data: reader.rest())
        default: message = .unknown(type: type, id: id, payload: reader.rest())
        }
        guard reader.isAtEnd else {
            throw SFTPDecodingError(.trailingBytes, at: reader.offset, "\(reader.remaining) unexpected bytes after the fields of \(name)")
        }
        return message
    }
}

/// Reads SSH wire fields from one packet body; every short read names the field that did not fit.
private struct FieldReader {
    private let bytes: ArraySlice<UInt8>
    private var position: Int
    var packetName = "SFTP packet"

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        self.position = bytes.startIndex
    }

    /// Offset within the packet, counting its 4-byte length field.
    var offset: Int { position - bytes.startIndex + 4 }
    var remaining: Int { bytes.endIndex - position }
    var isAtEnd: Bool { position >= bytes.endIndex }

    mutating func byte() -> UInt8? {
        guard position < bytes.endIndex else { return nil }
        defer { position += 1 }
        return bytes[position]
    }

    mutating func uint32(_ field: String) throws(SFTPDecodingError) -> UInt32 {
        try need(4, field)
        var value: UInt32 = 0
        for index in position..<position + 4 { value = value << 8 | UInt32(bytes[index]) }
        position += 4
        return value
    }

    mutating func uint64(_ field: String) throws(SFTPDecodingError) -> UInt64 {
        let high = try uint32(field)
        let low = try uint32(field)
        return UInt64(high) << 32 | UInt64(low)
    }

    mutating func bytes(_ field: String) throws(SFTPDecodingError) -> [UInt8] {
        let length = Int(try uint32(field + " length"))
        try need(length, field)
        defer { position += length }
        return Array(bytes[position..<position + length])
    }

    mutating func string(_ field: String) throws(SFTPDecodingError) -> String {
        let start = offset
        let raw = try bytes(field)
        guard let text = String(validating: raw, as: UTF8.self) else {
            throw SFTPDecodingError(.invalidUTF8, at: start, "\(packetName): field '\(field)' is not valid UTF-8")
        }
        return text
    }

    mutating func rest() -> [UInt8] {
        defer { position = bytes.endIndex }
        return Array(bytes[position...])
    }

    mutating func attributes() throws(SFTPDecodingError) -> SFTPFileAttributes {
        let flags = try uint32("attribute flags")
        let known =
            SFTPFileAttributes.sizeFlag | SFTPFileAttributes.uidGidFlag | SFTPFileAttributes.permissionsFlag
            | SFTPFileAttributes.timesFlag | SFTPFileAttributes.extendedFlag
        // Version 3 defines only these; another bit would announce fields whose layout nobody here knows.
        guard flags & ~known == 0 else {
            throw SFTPDecodingError(
                .unknownAttributeFlags, at: offset - 4,
                "\(packetName): attribute flags 0x\(String(flags, radix: 16)) include bits SFTP version 3 does not define (0x\(String(flags & ~known, radix: 16)))"
            )
        }
        var attributes = SFTPFileAttributes()
        if flags & SFTPFileAttributes.sizeFlag != 0 { attributes.size = try uint64("size") }
        if flags & SFTPFileAttributes.uidGidFlag != 0 {
            attributes.uid = try uint32("uid")
            attributes.gid = try uint32("gid")
        }
        if flags & SFTPFileAttributes.permissionsFlag != 0 { attributes.permissions = try uint32("permissions") }
        if flags & SFTPFileAttributes.timesFlag != 0 {
            attributes.accessTime = try uint32("atime")
            attributes.modificationTime = try uint32("mtime")
        }
        if flags & SFTPFileAttributes.extendedFlag != 0 {
            let count = try uint32("extended_count")
            guard count <= SFTPPacketDecoder.maximumExtensions else {
                throw SFTPDecodingError(
                    .tooManyEntries, at: offset - 4, "\(packetName) has \(count) extended attributes (limit \(SFTPPacketDecoder.maximumExtensions))")
            }
            for _ in 0..<count {
                attributes.extended.append(SFTPExtensionPair(name: try string("extended_type"), data: try bytes("extended_data")))
            }
        }
        return attributes
    }

    private func need(_ count: Int, _ field: String) throws(SFTPDecodingError) {
        guard count <= remaining else {
            throw SFTPDecodingError(
                .truncatedField, at: offset,
                "truncated \(packetName): field '\(field)' needs \(count) bytes, \(remaining) remain")
        }
    }
}
