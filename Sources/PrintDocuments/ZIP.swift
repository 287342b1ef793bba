/// Reads a ZIP archive the way `java` and office readers do: the end-of-central-directory record, then the central
/// directory, then only the entries asked for. Opening costs O(directory), not O(file).
///
/// Stored (0) and deflated (8) entries only; ZIP64, multi-disk and encrypted archives are refused with a message
/// saying so. Data in front of the archive (a self-extracting stub) is tolerated, as `java` tolerates it.
public struct ZIPReader: Sendable {
    struct Entry: Sendable {
        let name: String
        let flags: UInt16
        let method: UInt16
        let crc: UInt32
        let compressedSize: Int
        let uncompressedSize: Int
        let localHeaderOffset: Int
    }

    private static let endSignature: UInt32 = 0x0605_4B50
    private static let directorySignature: UInt32 = 0x0201_4B50
    private static let localSignature: UInt32 = 0x0403_4B50

    private let bytes: [UInt8]
    private let entries: [Entry]
    private let index: [String: Int]

    /// Opens an archive: finds its end record and reads its central directory (up to
    /// ``DocumentLimits/maximumZIPEntries`` entries), checking that every entry lies inside the file.
    public init(_ bytes: [UInt8]) throws(DocumentError) {
        self.bytes = bytes
        // The end record is 22 bytes plus a comment of up to 65,535 bytes, so it lies in the file's last 65,557 bytes;
        // the last candidate whose comment length reaches exactly the end of the file is the real one.
        guard bytes.count >= 22 else {
            throw DocumentError("not a ZIP archive: \(bytes.count) bytes is shorter than an end-of-central-directory record (22 bytes)")
        }
        let searchFloor = max(0, bytes.count - 22 - 65_535)
        var end: Int?
        var candidate = bytes.count - 22
        while candidate >= searchFloor {
            if bytes.readUInt32LE(candidate) == Self.endSignature,
                let commentLength = bytes.readUInt16LE(candidate + 20), candidate + 22 + Int(commentLength) <= bytes.count
            {
                end = candidate
                break
            }
            candidate -= 1
        }
        guard let end else {
            throw DocumentError(
                "not a ZIP archive: no end-of-central-directory record in its last \(bytes.count - searchFloor) bytes (a truncated upload?)")
        }
        guard let disk = bytes.readUInt16LE(end + 4), let directoryDisk = bytes.readUInt16LE(end + 6),
            let entriesOnDisk = bytes.readUInt16LE(end + 8), let totalEntries = bytes.readUInt16LE(end + 10),
            let directorySize32 = bytes.readUInt32LE(end + 12), let directoryOffset32 = bytes.readUInt32LE(end + 16)
        else {
            throw DocumentError("ZIP end-of-central-directory record is cut short")
        }
        guard totalEntries != 0xFFFF, directorySize32 != 0xFFFF_FFFF, directoryOffset32 != 0xFFFF_FFFF else {
            throw DocumentError("ZIP64 archive: only classic ZIP (under 65,535 entries and 4 GiB) is supported")
        }
        guard disk == 0, directoryDisk == 0, entriesOnDisk == totalEntries else {
            throw DocumentError("multi-disk ZIP archive (disk \(disk) of a split set): expected a single-file archive")
        }
        let count = Int(totalEntries)
        let directorySize = Int(directorySize32)
        let declaredOffset = Int(directoryOffset32)
        guard count <= DocumentLimits.maximumZIPEntries else {
            throw DocumentError("ZIP archive with \(count) entries; the limit is \(DocumentLimits.maximumZIPEntries)")
        }
        // The directory ends where the end record starts; any difference from the declared offset is data in front.
        let directoryStart = end - directorySize
        guard directoryStart >= 0, directoryStart >= declaredOffset else {
            throw DocumentError("ZIP central directory (\(directorySize) bytes at \(declaredOffset)) does not fit before its end record at \(end)")
        }
        guard count * 46 <= directorySize else {
            throw DocumentError("ZIP central directory of \(directorySize) bytes cannot hold the \(count) entries it claims")
        }
        let prefix = directoryStart - declaredOffset
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        var index: [String: Int] = [:]
        var position = directoryStart
        for number in 0..<count {
            guard bytes.readUInt32LE(position) == Self.directorySignature, let flags = bytes.readUInt16LE(position + 8),
                let method = bytes.readUInt16LE(position + 10), let crc = bytes.readUInt32LE(position + 16),
                let compressed = bytes.readUInt32LE(position + 20), let uncompressed = bytes.readUInt32LE(position + 24),
                let nameLength = bytes.readUInt16LE(position + 28), let extraLength = bytes.readUInt16LE(position + 30),
                let commentLength = bytes.readUInt16LE(position + 32), let offset = bytes.readUInt32LE(position + 42)
            else {
                throw DocumentError("ZIP central directory entry \(number) is damaged: expected the signature PK\\1\\2 at \(position)")
            }
            let next = position + 46 + Int(nameLength) + Int(extraLength) + Int(commentLength)
            guard next <= end else {
                throw DocumentError("ZIP central directory entry \(number) runs past the directory's end")
            }
            guard compressed != 0xFFFF_FFFF, uncompressed != 0xFFFF_FFFF, offset != 0xFFFF_FFFF else {
                throw DocumentError("ZIP entry \(number) uses ZIP64 sizes: only classic ZIP is supported")
            }
            let name = String(decoding: bytes[(position + 46)..<(position + 46 + Int(nameLength))], as: UTF8.self)
            let localOffset = Int(offset) + prefix
            guard localOffset < directoryStart else {
                throw DocumentError(
                    "ZIP entry \(name.excerpt()) claims its data at \(localOffset), beyond the central directory at \(directoryStart)")
            }
            if index[name] == nil { index[name] = entries.count }
            entries.append(
                Entry(
                    name: name, flags: flags, method: method, crc: crc, compressedSize: Int(compressed),
                    uncompressedSize: Int(uncompressed), localHeaderOffset: localOffset))
            position = next
        }
        self.entries = entries
        self.index = index
    }

    /// Entry names in directory order.
    public var entryNames: [String] { entries.map(\.name) }

    /// The bytes of entry `name` (nil when there is none), refusing an entry that inflates to more than `limit` bytes,
    /// whatever its header says. The CRC-32 is checked, as `java` checks it.
    public func contents(of name: String, limit: Int) throws(DocumentError) -> [UInt8]? {
        guard let position = index[name] else { return nil }
        let entry = entries[position]
        let shown = name.excerpt()
        guard entry.flags & 1 == 0 else { throw DocumentError("ZIP entry \(shown) is encrypted: expected a plain entry") }
        let header = entry.localHeaderOffset
        guard bytes.readUInt32LE(header) == Self.localSignature, let nameLength = bytes.readUInt16LE(header + 26),
            let extraLength = bytes.readUInt16LE(header + 28)
        else {
            throw DocumentError("ZIP entry \(shown): expected a local header (PK\\3\\4) at \(header)")
        }
        let start = header + 30 + Int(nameLength) + Int(extraLength)
        guard start <= bytes.count, entry.compressedSize <= bytes.count - start else {
            throw DocumentError("ZIP entry \(shown): its \(entry.compressedSize) bytes of data run past the end of the file")
        }
        guard entry.uncompressedSize <= limit else {
            throw DocumentError("ZIP entry \(shown) inflates to \(entry.uncompressedSize) bytes; the limit is \(limit)")
        }
        let data = bytes[start..<(start + entry.compressedSize)]
        let contents: [UInt8]
        switch entry.method {
        case 0:
            guard entry.compressedSize == entry.uncompressedSize else {
                throw DocumentError("ZIP entry \(shown) is stored but its sizes differ (\(entry.compressedSize) vs \(entry.uncompressedSize))")
            }
            contents = Array(data)
        case 8:
            do {
                // The declared size bounds the output too: an entry inflating past its own header is damaged.
                contents = try Deflate.inflateRaw(data, limit: min(limit, entry.uncompressedSize), strict: true)
            } catch {
                throw DocumentError("ZIP entry \(shown): \(error.message)")
            }
            guard contents.count == entry.uncompressedSize else {
                throw DocumentError("ZIP entry \(shown) inflates to \(contents.count) bytes; its header says \(entry.uncompressedSize)")
            }
        default:
            throw DocumentError("ZIP entry \(shown) uses compression method \(entry.method); expected stored (0) or deflate (8)")
        }
        guard Deflate.crc32(contents) == entry.crc else {
            throw DocumentError("ZIP entry \(shown) fails its CRC-32 check: the archive is damaged")
        }
        return contents
    }
}

/// Writes a ZIP archive, deterministically: every timestamp is 1980-01-01 00:00 (the earliest DOS date), no extra
/// fields, entries in the order added. Stored or deflated entries.
///
/// It writes classic ZIP only: archives beyond 65,535 entries or 4 GiB are outside what it is for (its sizes wrap
/// rather than trap); everything this module makes is far below.
public struct ZIPWriter: Sendable {
    private var body: [UInt8] = []
    private var directory: [UInt8] = []
    private var count = 0

    public init() {}

    /// Appends an entry: deflated (level 6) when `compress`, else stored.
    public mutating func add(_ name: String, _ data: [UInt8], compress: Bool) {
        let stored = compress ? Deflate.deflateRaw(data) : data
        append(name: name, method: compress ? 8 : 0, crc: Deflate.crc32(data), size: data.count, stored: stored)
    }

    /// The archive with one more, stored entry of `size` bytes that `fill` writes straight into the final array: one
    /// allocation, no copies of the payload — how the 46.6 MB jar stand-in stays fast even in a debug build.
    func finish(appendingStored name: String, size: Int, fill: (UnsafeMutableBufferPointer<UInt8>) -> Void) -> [UInt8] {
        let nameBytes = Array(name.utf8)
        let size = max(0, size)
        var local: [UInt8] = []
        appendHeader(into: &local, signature: 0x0403_4B50, name: nameBytes, method: 0, crc: 0, compressed: size, size: size, local: true)
        let headerOffset = body.count
        let dataStart = body.count + local.count
        let total = dataStart + size + directory.count + 46 + nameBytes.count + 22
        return [UInt8](unsafeUninitializedCapacity: total) { buffer, initialized in
            guard let base = buffer.baseAddress else { return }
            func put(_ bytes: [UInt8], at offset: Int) {
                bytes.withUnsafeBufferPointer { source in
                    if let from = source.baseAddress { (base + offset).update(from: from, count: source.count) }
                }
            }
            put(body, at: 0)
            put(local, at: headerOffset)
            let region = UnsafeMutableBufferPointer(start: base + dataStart, count: size)
            fill(region)
            let crc = Deflate.crc32(UnsafeBufferPointer(region), seed: 0)
            put(Self.littleEndian(crc), at: headerOffset + 14)
            var tail = directory
            appendHeader(
                into: &tail, signature: 0x0201_4B50, name: nameBytes, method: 0, crc: crc, compressed: size, size: size,
                local: false, offset: headerOffset)
            Self.appendEnd(
                into: &tail, count: count + 1, directorySize: directory.count + 46 + nameBytes.count,
                directoryOffset: dataStart + size)
            put(tail, at: dataStart + size)
            initialized = total
        }
    }

    /// Bytes the archive will have once finished.
    var finishedSize: Int { body.count + directory.count + 22 }

    /// The archive: the entries, the central directory, the end record.
    public func finish() -> [UInt8] {
        var archive: [UInt8] = []
        archive.reserveCapacity(finishedSize)
        archive += body
        archive += directory
        Self.appendEnd(into: &archive, count: count, directorySize: directory.count, directoryOffset: body.count)
        return archive
    }

    private static func appendEnd(into archive: inout [UInt8], count: Int, directorySize: Int, directoryOffset: Int) {
        archive.appendUInt32LE(0x0605_4B50)
        archive.appendUInt16LE(0)  // this disk
        archive.appendUInt16LE(0)  // disk with the directory
        archive.appendUInt16LE(UInt16(truncatingIfNeeded: count))
        archive.appendUInt16LE(UInt16(truncatingIfNeeded: count))
        archive.appendUInt32LE(UInt32(truncatingIfNeeded: directorySize))
        archive.appendUInt32LE(UInt32(truncatingIfNeeded: directoryOffset))
        archive.appendUInt16LE(0)  // comment length
    }

    private mutating func append(name: String, method: UInt16, crc: UInt32, size: Int, stored: [UInt8]) {
        let nameBytes = Array(name.utf8)
        let offset = body.count
        appendHeader(
            into: &body, signature: 0x0403_4B50, name: nameBytes, method: method, crc: crc, compressed: stored.count,
            size: size, local: true)
        body += stored
        appendHeader(
            into: &directory, signature: 0x0201_4B50, name: nameBytes, method: method, crc: crc, compressed: stored.count,
            size: size, local: false, offset: offset)
        count += 1
    }

    private func appendHeader(
        into out: inout [UInt8], signature: UInt32, name: [UInt8], method: UInt16, crc: UInt32,
        compressed: Int, size: Int, local: Bool, offset: Int = 0
    ) {
        out.appendUInt32LE(signature)
        if !local { out.appendUInt16LE(20) }  // made by: MS-DOS, ZIP 2.0
        out.appendUInt16LE(method == 8 ? 20 : 10)  // needed to extract: 2.0 deflate, 1.0 stored
        // Bit 11 (names are UTF-8) only when a name needs it, as zip tools do.
        out.appendUInt16LE(name.contains(where: { $0 >= 0x80 }) ? 0x0800 : 0)
        out.appendUInt16LE(method)
        out.appendUInt16LE(0)  // time 00:00:00
        out.appendUInt16LE(0x0021)  // date 1980-01-01
        out.appendUInt32LE(crc)
        out.appendUInt32LE(UInt32(truncatingIfNeeded: compressed))
        out.appendUInt32LE(UInt32(truncatingIfNeeded: size))
        out.appendUInt16LE(UInt16(truncatingIfNeeded: name.count))
        out.appendUInt16LE(0)  // extra field length
        if !local {
            out.appendUInt16LE(0)  // comment length
            out.appendUInt16LE(0)  // disk
            out.appendUInt16LE(0)  // internal attributes
            out.appendUInt32LE(0)  // external attributes
            out.appendUInt32LE(UInt32(truncatingIfNeeded: offset))
        }
        out += name
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }
}
