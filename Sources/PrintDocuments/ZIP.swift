import CZlib

/// Reads a ZIP archive's central directory and inflates the entries asked for — what OOXML/ODF documents and jars
/// are. Only stored and deflated entries; no ZIP64, no encryption (refused with a message saying so).
public struct ZIPReader: Sendable {
    struct Entry: Sendable {
        let name: String
        let method: UInt16
        let compressedSize: Int
        let uncompressedSize: Int
        let localHeaderOffset: Int
    }

    private let bytes: [UInt8]
    private let entries: [Entry]

    public init(_ bytes: [UInt8]) throws(DocumentError) {
        self.bytes = bytes
        // The end-of-central-directory record is in the last 22 + 65535 bytes (its comment can be that long).
        let searchStart = max(0, bytes.count - 22 - 65_535)
        guard bytes.count >= 22, let end = stride(from: bytes.count - 22, through: searchStart, by: -1)
            .first(where: { bytes.readUInt32LE($0) == 0x0605_4b50 }) else {
            throw DocumentError("not a ZIP archive: no end-of-central-directory record (a truncated file?)")
        }
        let count = Int(bytes.readUInt16LE(end + 10) ?? 0)
        let directorySize = Int(bytes.readUInt32LE(end + 12) ?? 0), directoryOffset = Int(bytes.readUInt32LE(end + 16) ?? 0)
        guard count <= DocumentLimits.maximumZIPEntries else {
            throw DocumentError("ZIP archive with \(count) entries; the limit is \(DocumentLimits.maximumZIPEntries)")
        }
        guard directoryOffset <= end, directorySize <= end - directoryOffset else {
            throw DocumentError("ZIP central directory at \(directoryOffset) (\(directorySize) bytes) lies outside the file (ZIP64 is not supported)")
        }
        var entries: [Entry] = []
        var position = directoryOffset
        for index in 0..<count {
            guard bytes.readUInt32LE(position) == 0x0201_4b50, let method = bytes.readUInt16LE(position + 10),
                  let compressed = bytes.readUInt32LE(position + 20), let uncompressed = bytes.readUInt32LE(position + 24),
                  let nameLength = bytes.readUInt16LE(position + 28), let extraLength = bytes.readUInt16LE(position + 30),
                  let commentLength = bytes.readUInt16LE(position + 32), let offset = bytes.readUInt32LE(position + 42),
                  position + 46 + Int(nameLength) <= bytes.count else {
                throw DocumentError("ZIP central directory entry \(index) is damaged")
            }
            if (bytes.readUInt16LE(position + 8) ?? 0) & 1 != 0 { throw DocumentError("encrypted ZIP entries are not supported") }
            let name = String(decoding: bytes[(position + 46)..<(position + 46 + Int(nameLength))], as: UTF8.self)
            entries.append(Entry(name: name, method: method, compressedSize: Int(compressed), uncompressedSize: Int(uncompressed),
                                 localHeaderOffset: Int(offset)))
            position += 46 + Int(nameLength) + Int(extraLength) + Int(commentLength)
        }
        self.entries = entries
    }

    public var entryNames: [String] { entries.map(\.name) }

    /// The bytes of entry `name` (nil when there is none), refusing more than `limit` bytes once inflated.
    public func contents(of name: String, limit: Int) throws(DocumentError) -> [UInt8]? {
        guard let entry = entries.first(where: { $0.name == name }) else { return nil }
        let header = entry.localHeaderOffset
        guard bytes.readUInt32LE(header) == 0x0403_4b50, let nameLength = bytes.readUInt16LE(header + 26),
              let extraLength = bytes.readUInt16LE(header + 28) else {
            throw DocumentError("ZIP entry \(name): damaged local header")
        }
        let start = header + 30 + Int(nameLength) + Int(extraLength)
        guard start <= bytes.count, entry.compressedSize <= bytes.count - start else {
            throw DocumentError("ZIP entry \(name): its data runs past the end of the file")
        }
        guard entry.uncompressedSize <= limit else {
            throw DocumentError("ZIP entry \(name) inflates to \(entry.uncompressedSize) bytes; the limit is \(limit)")
        }
        let data = Array(bytes[start..<(start + entry.compressedSize)])
        switch entry.method {
        case 0: return data
        case 8: return try Deflate.inflateRaw(data, limit: limit)
        default: throw DocumentError("ZIP entry \(name) uses compression method \(entry.method); expected stored (0) or deflate (8)")
        }
    }
}

/// Writes a ZIP archive: deterministic (every timestamp 1980-01-01 00:00), stored or deflated entries, in order.
public struct ZIPWriter: Sendable {
    private var out: [UInt8] = []
    private var directory: [UInt8] = []
    private var count = 0

    public init() {}

    public mutating func add(_ name: String, _ data: [UInt8], compress: Bool) {
        let stored = compress ? Deflate.deflateRaw(data) : data
        let crc = Deflate.crc32(data)
        let nameBytes = Array(name.utf8)
        let offset = out.count
        func common(_ into: inout [UInt8]) {
            into.appendUInt16LE(20)                       // version needed
            into.appendUInt16LE(0x0800)                   // UTF-8 names
            into.appendUInt16LE(compress ? 8 : 0)
            into.appendUInt16LE(0)                        // time 00:00
            into.appendUInt16LE(0x21)                     // date 1980-01-01
            into.appendUInt32LE(crc)
            into.appendUInt32LE(UInt32(truncatingIfNeeded: stored.count))
            into.appendUInt32LE(UInt32(truncatingIfNeeded: data.count))
            into.appendUInt16LE(UInt16(truncatingIfNeeded: nameBytes.count))
            into.appendUInt16LE(0)                        // extra
        }
        out.appendUInt32LE(0x0403_4b50)
        common(&out)
        out += nameBytes
        out += stored
        directory.appendUInt32LE(0x0201_4b50)
        directory.appendUInt16LE(20)                      // version made by
        common(&directory)
        directory.appendUInt16LE(0)                       // comment
        directory.appendUInt16LE(0)                       // disk
        directory.appendUInt16LE(0)                       // internal attributes
        directory.appendUInt32LE(0)                       // external attributes
        directory.appendUInt32LE(UInt32(truncatingIfNeeded: offset))
        directory += nameBytes
        count += 1
    }

    /// Bytes the archive will have once finished, with `extraEntry` stored entries of these name lengths added.
    var currentSize: Int { out.count + directory.count + 22 }

    public func finish() -> [UInt8] {
        var archive = out
        archive += directory
        archive.appendUInt32LE(0x0605_4b50)
        archive.appendUInt16LE(0)
        archive.appendUInt16LE(0)
        archive.appendUInt16LE(UInt16(truncatingIfNeeded: count))
        archive.appendUInt16LE(UInt16(truncatingIfNeeded: count))
        archive.appendUInt32LE(UInt32(truncatingIfNeeded: directory.count))
        archive.appendUInt32LE(UInt32(truncatingIfNeeded: out.count))
        archive.appendUInt16LE(0)
        return archive
    }
}

/// Raw deflate through the system zlib.
enum Deflate {
    static func crc32(_ data: [UInt8]) -> UInt32 {
        data.withUnsafeBufferPointer { buffer in
            var crc = CZlib.crc32(0, nil, 0)
            var offset = 0
            while offset < buffer.count {
                let chunk = min(1 << 30, buffer.count - offset)
                crc = CZlib.crc32(crc, buffer.baseAddress! + offset, uInt(chunk))
                offset += chunk
            }
            return UInt32(truncatingIfNeeded: crc)
        }
    }

    static func deflateRaw(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        guard czlib_deflate_init_raw(&stream, 6) == Z_OK else { return data }
        defer { deflateEnd(&stream) }
        var output = [UInt8](repeating: 0, count: Int(deflateBound(&stream, uLong(data.count))) + 64)
        let produced: Int = data.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                _ = deflate(&stream, Z_FINISH)
                return out.count - Int(stream.avail_out)
            }
        }
        output.removeLast(output.count - produced)
        return output
    }

    static func inflateRaw(_ data: [UInt8], limit: Int) throws(DocumentError) -> [UInt8] {
        var stream = z_stream()
        guard czlib_inflate_init_raw(&stream) == Z_OK else { throw DocumentError("zlib could not start inflating") }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var status = Z_OK
        var failure: DocumentError?
        data.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while status == Z_OK {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    return out.count - Int(stream.avail_out)
                }
                output += chunk[0..<produced]
                if output.count > limit {
                    failure = DocumentError("a compressed entry inflates past the limit of \(limit) bytes")
                    return
                }
                if status == Z_BUF_ERROR && stream.avail_in == 0 {
                    failure = DocumentError("a compressed entry ends early (truncated deflate data)")
                    return
                }
            }
        }
        if let failure { throw failure }
        guard status == Z_STREAM_END else { throw DocumentError("a compressed entry is not valid deflate data (zlib status \(status))") }
        return output
    }
}

extension [UInt8] {
    func readUInt16LE(_ offset: Int) -> UInt16? {
        guard offset >= 0, offset + 2 <= count else { return nil }
        return UInt16(self[offset]) | UInt16(self[offset + 1]) << 8
    }

    func readUInt32LE(_ offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= count else { return nil }
        return UInt32(self[offset]) | UInt32(self[offset + 1]) << 8 | UInt32(self[offset + 2]) << 16 | UInt32(self[offset + 3]) << 24
    }

    mutating func appendUInt16LE(_ value: UInt16) { append(contentsOf: [UInt8(value & 0xFF), UInt8(value >> 8)]) }

    mutating func appendUInt32LE(_ value: UInt32) {
        append(contentsOf: [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)])
    }
}
