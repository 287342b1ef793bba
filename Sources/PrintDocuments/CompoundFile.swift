/// Microsoft's Compound File Binary format (MS-CFB), the container of DOC and PPT: a 512-byte header, FAT sectors
/// (located through the header's DIFAT and DIFAT sectors), a directory of storages and streams, and their data.
/// Version 3 (512-byte sectors) is written; versions 3 and 4 are read.
enum CompoundFile {
    static let signature: [UInt8] = [0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1]
    private static let freeSector: UInt32 = 0xFFFF_FFFF, endOfChain: UInt32 = 0xFFFF_FFFE
    private static let fatSector: UInt32 = 0xFFFF_FFFD, difatSector: UInt32 = 0xFFFF_FFFC, noStream: UInt32 = 0xFFFF_FFFF
    static let sectorSize = 512

    /// A valid compound file of `totalSize` bytes (rounded down to whole sectors) holding one stream, `streamName`,
    /// that fills everything but the header, FAT, DIFAT and directory. The stream starts with `prefix`, then zeros.
    static func write(streamName: String, prefix: [UInt8], totalSize: Int) -> [UInt8] {
        let totalSectors = max(16, totalSize / sectorSize - 1)  // sectors after the header
        let entriesPerFAT = sectorSize / 4
        let fatCount = (totalSectors + entriesPerFAT - 1) / entriesPerFAT
        let difatCount = fatCount > 109 ? (fatCount - 109 + (entriesPerFAT - 2)) / (entriesPerFAT - 1) : 0
        let directorySector = fatCount + difatCount
        let firstData = directorySector + 1
        let dataSectors = totalSectors - firstData
        let streamSize = dataSectors * sectorSize

        var out = [UInt8](repeating: 0, count: sectorSize * (1 + totalSectors))
        func put32(_ value: UInt32, at offset: Int) {
            out[offset] = UInt8(value & 0xFF)
            out[offset + 1] = UInt8(value >> 8 & 0xFF)
            out[offset + 2] = UInt8(value >> 16 & 0xFF)
            out[offset + 3] = UInt8(value >> 24)
        }
        func put16(_ value: UInt16, at offset: Int) {
            out[offset] = UInt8(value & 0xFF)
            out[offset + 1] = UInt8(value >> 8)
        }
        func sectorOffset(_ sector: Int) -> Int { (sector + 1) * sectorSize }

        // Header.
        for (index, byte) in signature.enumerated() { out[index] = byte }
        put16(0x003E, at: 24)  // minor version
        put16(0x0003, at: 26)  // major version 3
        put16(0xFFFE, at: 28)  // little-endian
        put16(9, at: 30)  // 512-byte sectors
        put16(6, at: 32)  // 64-byte mini sectors
        put32(UInt32(fatCount), at: 44)
        put32(UInt32(directorySector), at: 48)
        put32(4096, at: 56)  // mini stream cutoff
        put32(endOfChain, at: 60)  // no mini FAT
        put32(difatCount > 0 ? UInt32(fatCount) : endOfChain, at: 68)
        put32(UInt32(difatCount), at: 72)
        for slot in 0..<109 { put32(slot < fatCount ? UInt32(slot) : freeSector, at: 76 + 4 * slot) }

        // DIFAT sectors: the FAT sector numbers beyond the header's 109, 127 a sector, chained by their last slot.
        for difat in 0..<difatCount {
            let base = sectorOffset(fatCount + difat)
            for slot in 0..<(entriesPerFAT - 1) {
                let fat = 109 + difat * (entriesPerFAT - 1) + slot
                put32(fat < fatCount ? UInt32(fat) : freeSector, at: base + 4 * slot)
            }
            put32(difat + 1 < difatCount ? UInt32(fatCount + difat + 1) : endOfChain, at: base + 4 * (entriesPerFAT - 1))
        }

        // FAT: what each sector is, and the stream's chain.
        for sector in 0..<(fatCount * entriesPerFAT) {
            let value: UInt32
            switch sector {
            case ..<fatCount: value = fatSector
            case ..<directorySector: value = difatSector
            case directorySector: value = endOfChain
            case ..<(totalSectors - 1): value = UInt32(sector + 1)
            case totalSectors - 1: value = endOfChain
            default: value = freeSector
            }
            put32(value, at: sectorOffset(sector / entriesPerFAT) + 4 * (sector % entriesPerFAT))
        }

        // Directory: the root storage, the stream as its only child, two unused entries.
        func entry(_ index: Int, name: String, type: UInt8, child: UInt32, start: UInt32, size: Int) {
            let base = sectorOffset(directorySector) + 128 * index
            let units = Array(name.utf16.prefix(31))
            for (position, unit) in units.enumerated() { put16(unit, at: base + 2 * position) }
            put16(type == 0 ? 0 : UInt16(2 * (units.count + 1)), at: base + 64)
            out[base + 66] = type
            out[base + 67] = type == 0 ? 0 : 1  // black
            put32(noStream, at: base + 68)  // left sibling
            put32(noStream, at: base + 72)  // right sibling
            put32(child, at: base + 76)
            put32(start, at: base + 116)
            put32(UInt32(truncatingIfNeeded: size), at: base + 120)
        }
        entry(0, name: "Root Entry", type: 5, child: 1, start: endOfChain, size: 0)
        entry(1, name: streamName, type: 2, child: noStream, start: UInt32(firstData), size: streamSize)
        entry(2, name: "", type: 0, child: noStream, start: 0, size: 0)
        entry(3, name: "", type: 0, child: noStream, start: 0, size: 0)

        let dataStart = sectorOffset(firstData)
        for (index, byte) in prefix.prefix(streamSize).enumerated() { out[dataStart + index] = byte }
        return out
    }

    /// The names of the storages and streams in a compound file, after checking its header, FAT and directory
    /// chain, and that `stream` (when given) is there and its sectors are all in the file. Throws, saying what is
    /// wrong, for anything else (including a truncated file).
    static func entryNames(_ bytes: [UInt8], requiring stream: String? = nil) throws(DocumentError) -> [String] {
        guard bytes.count >= 512, bytes.starts(with: signature) else {
            throw DocumentError("not a compound file: expected the OLE2 signature D0 CF 11 E0 A1 B1 1A E1, found \(describePrefix(bytes))")
        }
        guard bytes.readUInt16LE(28) == 0xFFFE, let major = bytes.readUInt16LE(26), let shift = bytes.readUInt16LE(30),
            (major == 3 && shift == 9) || (major == 4 && shift == 12)
        else {
            throw DocumentError("compound file header is damaged: expected version 3 with 512-byte or 4 with 4096-byte sectors")
        }
        let size = 1 << Int(shift)
        let sectorCount = bytes.count / size  // including the header's
        guard let fatCount32 = bytes.readUInt32LE(44), let firstDirectory = bytes.readUInt32LE(48),
            let firstDIFAT = bytes.readUInt32LE(68), let difatCount32 = bytes.readUInt32LE(72)
        else {
            throw DocumentError("compound file header is cut short")
        }
        let fatCount = Int(fatCount32)
        let difatCount = Int(difatCount32)
        guard fatCount >= 1, fatCount <= sectorCount, difatCount <= sectorCount else {
            throw DocumentError("compound file header claims \(fatCount) FAT sectors in a file of \(sectorCount) sectors")
        }
        func offset(_ sector: UInt32) throws(DocumentError) -> Int {
            let start = (Int(sector) + 1) * size
            guard sector < 0xFFFF_FFFA, start + size <= bytes.count else {
                throw DocumentError("compound file is truncated: sector \(sector) lies beyond its \(bytes.count) bytes")
            }
            return start
        }
        // FAT sector numbers: 109 in the header, the rest in the DIFAT chain.
        var fatSectors: [UInt32] = []
        for slot in 0..<min(109, fatCount) { fatSectors.append(bytes.readUInt32LE(76 + 4 * slot) ?? freeSector) }
        var difat = firstDIFAT
        var seen = Set<UInt32>()
        while fatSectors.count < fatCount, difat != endOfChain, difat != freeSector, seen.count < difatCount + 1 {
            guard seen.insert(difat).inserted else { throw DocumentError("compound file DIFAT chain loops") }
            let base = try offset(difat)
            for slot in 0..<(size / 4 - 1) where fatSectors.count < fatCount {
                fatSectors.append(bytes.readUInt32LE(base + 4 * slot) ?? freeSector)
            }
            difat = bytes.readUInt32LE(base + size - 4) ?? endOfChain
        }
        guard fatSectors.count == fatCount else { throw DocumentError("compound file lists \(fatSectors.count) of its \(fatCount) FAT sectors") }
        var fat: [UInt32] = []
        fat.reserveCapacity(fatCount * size / 4)
        for sector in fatSectors {
            let base = try offset(sector)
            for slot in 0..<(size / 4) { fat.append(bytes.readUInt32LE(base + 4 * slot) ?? freeSector) }
        }
        // The directory chain, each sector visited once.
        var names: [String] = []
        var streams: [String: (start: UInt32, size: UInt64)] = [:]
        var sector = firstDirectory
        var visited = Set<UInt32>()
        while sector != endOfChain {
            guard Int(sector) < fat.count, visited.insert(sector).inserted else {
                throw DocumentError("compound file directory chain is broken at sector \(sector)")
            }
            let base = try offset(sector)
            for entry in 0..<(size / 128) {
                let at = base + 128 * entry
                let type = bytes[at + 66]
                guard type == 1 || type == 2 || type == 5, let length = bytes.readUInt16LE(at + 64), length >= 2, length <= 64 else { continue }
                var units: [UInt16] = []
                for position in 0..<(Int(length) / 2 - 1) { units.append(bytes.readUInt16LE(at + 2 * position) ?? 0) }
                let name = String(decoding: units, as: UTF16.self)
                names.append(name)
                if type == 2, let start = bytes.readUInt32LE(at + 116), let size = bytes.readUInt64LE(at + 120) { streams[name] = (start, size) }
            }
            sector = fat[Int(sector)]
        }
        guard names.contains("Root Entry") else { throw DocumentError("compound file has no Root Entry in its directory") }
        if let stream {
            guard let entry = streams[stream] else {
                throw DocumentError("the compound file has no \(stream) stream (it holds \(names.prefix(5).joined(separator: ", ")))")
            }
            // Streams of 4096 bytes and more live in regular sectors: follow the chain, every sector inside the file.
            if entry.size >= 4096 {
                let needed = (entry.size + UInt64(size) - 1) / UInt64(size)
                guard needed <= UInt64(sectorCount) else {
                    throw DocumentError(
                        "compound file is truncated: its \(stream) stream of \(entry.size) bytes does not fit in \(bytes.count) bytes")
                }
                var current = entry.start
                var visited = Set<UInt32>()
                for _ in 0..<Int(needed) {
                    guard Int(current) < fat.count, visited.insert(current).inserted else {
                        throw DocumentError("compound file's \(stream) stream has a broken sector chain at \(current)")
                    }
                    _ = try offset(current)
                    current = fat[Int(current)]
                }
            }
        }
        return names
    }
}
