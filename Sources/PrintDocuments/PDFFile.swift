/// A PDF file opened the way real readers open one: `startxref` → the cross-reference table or stream (following
/// `/Prev` and hybrid `/XRefStm`) → the trailer; when that chain is broken, the objects are found by scanning the file
/// (`N G obj`), as poppler's and Ghostscript's repair does. Objects in object streams are read too.
struct PDFFile {
    enum XRefEntry: Sendable, Equatable {
        case offset(Int)
        case compressed(stream: Int, index: Int)
    }

    /// What was wrong with the file's structure, in the words Ghostscript's repair summary uses.
    struct Diagnostics: Sendable, Equatable {
        var headerOffset = 0
        var startxrefFound = false
        /// Where `startxref` points (nil when there is no number after it).
        var startxrefOffset: Int?
        /// `startxref` led to a readable table or stream.
        var startxrefValid = false
        /// A trailer dictionary (or cross-reference stream dictionary) was found, by either route.
        var trailerFound = false
        /// The cross-reference information was rebuilt by scanning the file.
        var reconstructed = false
    }

    private struct ObjectStream {
        let data: [UInt8]
        let offsets: [Int]
        let numbers: [Int]
    }

    /// The file's bytes: all of them, or (opened with ``init(end:window:headerOffset:)``) only its last ones.
    let bytes: [UInt8]
    /// Set when `bytes` are only the file's end.
    let window: Window?
    private(set) var entries: [Int: XRefEntry] = [:]
    private(set) var trailer: [String: PDFObject] = [:]
    private(set) var diagnostics = Diagnostics()
    private var objectStreams: [Int: ObjectStream] = [:]
    /// Bytes all decoded streams of this file may still take together (cross-reference and object streams here,
    /// page contents through ``decodeCounted(_:)``): many small streams that each inflate to the per-stream limit
    /// cannot add up to more than this.
    private(set) var decodeBudget = DocumentLimits.maximumDocumentBytes

    static let header = Array("%PDF-".utf8)
    /// Where the header may start: in the first 1024 bytes, where poppler and Ghostscript look.
    static let headerSearch = 1024 + header.count

    /// Where a file opened by its end (``init(end:window:headerOffset:)``) starts in the whole file, and whether
    /// reading it ever needed a byte before that: then what was read is not what the whole file says. A class, so
    /// that the non-mutating readers can note it too.
    final class Window {
        /// The offset in the file of the first byte kept.
        let base: Int
        private(set) var neededEarlierBytes = false
        init(base: Int) { self.base = base }
        func noteEarlierBytesNeeded() { neededEarlierBytes = true }
    }

    /// Opens `bytes`; throws only when they are not a PDF at all (no `%PDF-` in the first 1024 bytes, where poppler
    /// and Ghostscript look).
    init(_ bytes: [UInt8]) throws(DocumentError) {
        guard let headerOffset = bytes.firstOffset(of: Self.header, in: 0..<min(bytes.count, Self.headerSearch)) else {
            throw DocumentError("not a PDF: no %PDF- header in its first 1024 bytes (it starts with \(describePrefix(bytes)))")
        }
        self.bytes = bytes
        window = nil
        try open(headerOffset: headerOffset)
    }

    /// Opens a file from its last bytes only (`end`, the file's bytes from `window.base` on), its header having been
    /// found at `headerOffset`. Reads exactly as ``init(_:)`` would, as long as it needs no byte before the window:
    /// the file's offsets are the same (offsets before the window are noted in `window` and read as unreadable), and
    /// everything read from an offset reads forward, to the end of the file at most. The repair scan (which reads the
    /// whole file) is not run; it too is noted.
    init(end: [UInt8], window: Window, headerOffset: Int) throws(DocumentError) {
        bytes = end
        self.window = window
        try open(headerOffset: headerOffset)
    }

    /// The file's size in bytes.
    var size: Int { (window?.base ?? 0) + bytes.count }

    private mutating func open(headerOffset: Int) throws(DocumentError) {
        guard size <= DocumentLimits.maximumDocumentBytes else {
            throw DocumentError("PDF of \(size) bytes; the limit is \(DocumentLimits.maximumDocumentBytes)")
        }
        diagnostics.headerOffset = headerOffset
        readCrossReferences()
        if !hasUsableRoot() { reconstruct() }
    }

    /// Where the file's byte at `offset` is in `bytes`: the same offset for a whole file; for a window, nil (and
    /// noted) when the byte lies before it.
    private func index(_ offset: Int) -> Int? {
        guard let window else { return offset }
        guard offset >= window.base else {
            window.noteEarlierBytesNeeded()
            return nil
        }
        return offset - window.base
    }

    // MARK: Cross-reference sections

    private mutating func readCrossReferences() {
        let keyword = Array("startxref".utf8)
        // A window is at least 4096 bytes long (``PDFReader/pageCount(head:end:fileSize:)``), so the first search
        // looks at the same bytes; the second would look at the whole file.
        let tail = max(0, bytes.count - 4096)..<bytes.count
        guard let found = bytes.lastOffset(of: keyword, in: tail) ?? (window == nil ? bytes.lastOffset(of: keyword, in: 0..<bytes.count) : nil)
        else {
            window?.noteEarlierBytesNeeded()
            return
        }
        diagnostics.startxrefFound = true
        var scanner = PDFScanner(bytes, at: found + keyword.count)
        guard case .integer(let first)? = try? scanner.nextToken() else { return }
        diagnostics.startxrefOffset = first
        var pending = [first + diagnostics.headerOffset, first]
        var visited = Set<Int>()
        var sections = 0
        var firstSection = true
        while let offset = pending.popLast(), sections < 64 {
            guard !visited.contains(offset), offset >= 0, offset < size else { continue }
            visited.insert(offset)
            guard let section = readSection(at: offset) else {
                if firstSection, pending.count == 1 { continue }  // try the offset without the header shift
                break
            }
            sections += 1
            if firstSection {
                firstSection = false
                pending.removeAll()
                diagnostics.startxrefValid = true
                trailer = section.trailer
                diagnostics.trailerFound = true
            }
            for (number, entry) in section.entries where entries[number] == nil { entries[number] = entry }
            if let previous = section.trailer["Prev"]?.integer { pending.insert(previous, at: 0) }
            if let hybrid = section.trailer["XRefStm"]?.integer { pending.append(hybrid) }
        }
    }

    private struct Section {
        var entries: [Int: XRefEntry]
        var trailer: [String: PDFObject]
    }

    private mutating func readSection(at offset: Int) -> Section? {
        guard let start = index(offset) else { return nil }
        var scanner = PDFScanner(bytes, at: start)
        scanner.skipWhitespace()
        if bytes.matches(Array("xref".utf8), at: scanner.position) {
            scanner.position += 4
            return readTable(&scanner)
        }
        guard let (_, object) = try? parseIndirectObject(at: offset, expecting: nil),
            case .stream(let dictionary, _) = object, dictionary["Type"]?.name == "XRef",
            let data = decodeCounted(object)
        else { return nil }
        return readStreamSection(dictionary: dictionary, data: data)
    }

    /// A classic table: subsections `start count`, then 20-byte lines `oooooooooo ggggg n|f`, then `trailer << >>`.
    private func readTable(_ scanner: inout PDFScanner) -> Section? {
        var entries: [Int: XRefEntry] = [:]
        while true {
            guard let token = try? scanner.nextToken() else { return nil }
            switch token {
            case .keyword("trailer"):
                guard case .dictionary(let trailer)? = try? scanner.parseObject() else { return nil }
                return Section(entries: entries, trailer: trailer)
            case .integer(let start):
                guard case .integer(let count)? = try? scanner.nextToken(), start >= 0, count >= 0,
                    count <= (scanner.end - scanner.position) / 17 + 1, start <= 10_000_000
                else { return nil }
                for number in start..<(start + count) {
                    guard case .integer(let offset)? = try? scanner.nextToken(), case .integer? = try? scanner.nextToken(),
                        case .keyword(let kind)? = try? scanner.nextToken()
                    else { return nil }
                    if kind == "n", offset > 0, number > 0 { entries[number] = .offset(offset) }
                }
            default:
                return nil
            }
        }
    }

    /// A cross-reference stream (PDF 1.5): rows of `/W` big-endian fields for the objects in `/Index`.
    private func readStreamSection(dictionary: [String: PDFObject], data: [UInt8]) -> Section? {
        guard let widths = dictionary["W"]?.array?.compactMap(\.integer), widths.count == 3,
            widths.allSatisfy({ (0...8).contains($0) })
        else { return nil }
        let rowLength = widths[0] + widths[1] + widths[2]
        guard rowLength > 0 else { return nil }
        let size = dictionary["Size"]?.integer ?? 0
        let index = dictionary["Index"]?.array?.compactMap(\.integer) ?? [0, size]
        var entries: [Int: XRefEntry] = [:]
        var row = 0
        var pair = 0
        while pair + 1 < index.count {
            let start = index[pair]
            let count = index[pair + 1]
            pair += 2
            guard start >= 0, count >= 0, count <= data.count / rowLength + 1 else { return nil }
            for number in start..<(start + count) {
                let base = row * rowLength
                guard base + rowLength <= data.count else { return Section(entries: entries, trailer: dictionary) }
                row += 1
                func field(_ which: Int, default value: Int) -> Int {
                    let width = widths[which]
                    guard width > 0 else { return value }
                    var result = 0
                    let from = base + widths[..<which].reduce(0, +)
                    for offset in 0..<width { result = result << 8 | Int(data[from + offset]) }
                    return result
                }
                switch field(0, default: 1) {
                case 1: if field(1, default: 0) > 0, number > 0 { entries[number] = .offset(field(1, default: 0)) }
                case 2: entries[number] = .compressed(stream: field(1, default: 0), index: field(2, default: 0))
                default: continue
                }
            }
        }
        return Section(entries: entries, trailer: dictionary)
    }

    private mutating func hasUsableRoot() -> Bool {
        guard let root = trailer["Root"], let catalog = resolve(root).dictionary else { return false }
        return catalog["Pages"] != nil || catalog["Type"]?.name == "Catalog"
    }

    // MARK: Repair

    /// Rebuilds the cross-reference information by scanning for `N G obj` (the last definition of a number wins, as
    /// with incremental updates), takes the last `trailer` dictionary, and when that has no usable `/Root`, a
    /// cross-reference stream's dictionary or the last `/Type /Catalog` object.
    private mutating func reconstruct() {
        guard !diagnostics.reconstructed else { return }
        diagnostics.reconstructed = true
        if let window {
            window.noteEarlierBytesNeeded()  // the scan reads the whole file
            return
        }
        objectStreams = [:]
        var found: [Int: XRefEntry] = [:]
        var order: [Int] = []
        let keyword = Array("obj".utf8)
        var search = 0
        while let at = bytes.firstOffset(of: keyword, in: search..<bytes.count) {
            search = at + 3
            if at + 3 < bytes.count, PDFScanner.isRegular(bytes[at + 3]) { continue }
            if let start = objectHeaderStart(endingAt: at) {
                if found[start.number] == nil { order.append(start.number) }
                found[start.number] = .offset(start.offset)
            }
        }
        entries = found
        // The last trailer dictionary in the file, if any.
        let trailerKeyword = Array("trailer".utf8)
        var trailerSearchEnd = bytes.count
        while let at = bytes.lastOffset(of: trailerKeyword, in: 0..<trailerSearchEnd) {
            var scanner = PDFScanner(bytes, at: at + trailerKeyword.count)
            if case .dictionary(let dictionary)? = try? scanner.parseObject() {
                if trailer.isEmpty || dictionary["Root"] != nil { trailer = dictionary }
                diagnostics.trailerFound = true
                if dictionary["Root"] != nil { break }
            }
            trailerSearchEnd = at
        }
        // Cross-reference and object streams found on the way: the former may carry the trailer's keys, the latter
        // hold objects that have no `obj` header of their own.
        var catalog: Int?
        for number in order {
            guard case .offset(let offset)? = entries[number],
                let (_, object) = try? parseIndirectObject(at: offset, expecting: number),
                let dictionary = object.dictionary
            else { continue }
            switch dictionary["Type"]?.name {
            case "XRef":
                diagnostics.trailerFound = true
                if trailer["Root"] == nil { trailer = dictionary }
            case "ObjStm":
                if let stream = loadObjectStream(number) {
                    for (index, member) in memberNumbers(of: stream).enumerated() where entries[member] == nil {
                        entries[member] = .compressed(stream: number, index: index)
                    }
                }
            case "Catalog": catalog = number
            default: break
            }
        }
        let rootUsable = trailer["Root"].map { resolve($0).dictionary != nil } ?? false
        if !rootUsable, let catalog {
            trailer["Root"] = .reference(number: catalog, generation: 0)
        }
    }

    /// For `obj` at `at`: the object number and the offset where `N G obj` starts, when the two integers are there.
    private func objectHeaderStart(endingAt at: Int) -> (number: Int, offset: Int)? {
        var position = at - 1
        func skipSpaces() -> Bool {
            let before = position
            while position >= 0, PDFScanner.isWhitespace(bytes[position]) { position -= 1 }
            return position < before
        }
        func digits() -> (value: Int, start: Int)? {
            let last = position
            while position >= 0, (0x30...0x39).contains(bytes[position]), last - position < 10 { position -= 1 }
            guard position < last else { return nil }
            let text = String(decoding: bytes[(position + 1)...last], as: UTF8.self)
            return Int(text).map { ($0, position + 1) }
        }
        guard skipSpaces(), digits() != nil, skipSpaces(), let number = digits() else { return nil }
        guard position < 0 || !PDFScanner.isRegular(bytes[position]) else { return nil }
        return (number.value, number.start)
    }

    // MARK: Objects

    /// `N G obj <object> [stream … endstream] endobj` at the file's `offset`. A stream's range is where its data is
    /// in ``bytes``.
    func parseIndirectObject(at offset: Int, expecting number: Int?, depth: Int = 0) throws(DocumentError) -> (Int, PDFObject) {
        guard let first = index(offset) else { throw DocumentError("PDF object at byte \(offset) is before the bytes kept") }
        var scanner = PDFScanner(bytes, at: first)
        guard case .integer(let found)? = try scanner.nextToken(), case .integer? = try scanner.nextToken(),
            case .keyword("obj")? = try scanner.nextToken()
        else {
            throw DocumentError("PDF cross-reference points at byte \(offset), where no 'N G obj' header is")
        }
        if let number, number != found {
            throw DocumentError("PDF cross-reference for object \(number) points at object \(found)")
        }
        let object = try scanner.parseObject()
        guard case .dictionary(let dictionary) = object else { return (found, object) }
        let afterObject = scanner.position
        guard case .keyword("stream")? = try? scanner.nextToken() else {
            scanner.position = afterObject
            return (found, object)
        }
        // The data starts after the end-of-line that follows `stream` (CRLF or LF; a lone CR tolerated).
        var start = scanner.position
        if start < bytes.count, bytes[start] == 0x0D { start += 1 }
        if start < bytes.count, bytes[start] == 0x0A { start += 1 }
        let endKeyword = Array("endstream".utf8)
        if let length = streamLength(dictionary["Length"], depth: depth), length >= 0, length <= bytes.count - start {
            var after = start + length
            while after < bytes.count, PDFScanner.isWhitespace(bytes[after]), after - (start + length) < 4 { after += 1 }
            if bytes.matches(endKeyword, at: after) { return (found, .stream(dictionary, start..<(start + length))) }
        }
        // A wrong or missing /Length: the data runs to `endstream`, less the end-of-line in front of it.
        guard let endAt = bytes.firstOffset(of: endKeyword, in: start..<bytes.count) else {
            throw DocumentError("PDF stream of object \(found) has no endstream")
        }
        var end = endAt
        if end > start, bytes[end - 1] == 0x0A { end -= 1 }
        if end > start, bytes[end - 1] == 0x0D { end -= 1 }
        return (found, .stream(dictionary, start..<end))
    }

    private func streamLength(_ value: PDFObject?, depth: Int) -> Int? {
        switch value {
        case .integer(let length)?: return length
        case .reference(let number, _)? where depth < 4:
            // A length kept in its own object: read that object without its stream, so lengths cannot recurse far.
            guard case .offset(let offset)? = entries[number],
                let (_, object) = try? parseIndirectObject(at: offset, expecting: number, depth: depth + 1)
            else { return nil }
            return object.integer
        default: return nil
        }
    }

    /// Object `number` (nil when absent or unreadable). A broken cross-reference entry triggers the repair scan
    /// once, as real readers do.
    mutating func object(_ number: Int) -> PDFObject? {
        if let object = lookUp(number) { return object }
        guard !diagnostics.reconstructed else { return nil }
        let wasThere = entries[number] != nil
        guard wasThere else { return nil }
        reconstruct()
        return lookUp(number)
    }

    private mutating func lookUp(_ number: Int) -> PDFObject? {
        switch entries[number] {
        case .offset(let offset)?:
            return try? parseIndirectObject(at: offset, expecting: number).1
        case .compressed(let streamNumber, let index)?:
            if objectStreams[streamNumber] == nil, let stream = loadObjectStream(streamNumber) { objectStreams[streamNumber] = stream }
            guard let stream = objectStreams[streamNumber], index >= 0, index < stream.offsets.count else { return nil }
            var scanner = PDFScanner(stream.data, at: stream.offsets[index])
            return try? scanner.parseObject()
        case nil:
            return nil
        }
    }

    /// An object stream: `/N` pairs `number offset` then the objects from `/First`. The stream itself must be a plain
    /// object (never compressed), so loading cannot recurse.
    private mutating func loadObjectStream(_ number: Int) -> ObjectStream? {
        guard case .offset(let offset)? = entries[number],
            let (_, object) = try? parseIndirectObject(at: offset, expecting: number),
            case .stream(let dictionary, _) = object, let count = dictionary["N"]?.integer, let first = dictionary["First"]?.integer,
            count >= 0, let data = decodeCounted(object), first >= 0, first <= data.count, count <= data.count / 2 + 1
        else { return nil }
        var scanner = PDFScanner(data, at: 0, end: first)
        var offsets: [Int] = []
        var numbers: [Int] = []
        for _ in 0..<count {
            guard case .integer(let member)? = try? scanner.nextToken(), case .integer(let memberOffset)? = try? scanner.nextToken(),
                memberOffset >= 0, first + memberOffset < data.count
            else { break }
            numbers.append(member)
            offsets.append(first + memberOffset)
        }
        return ObjectStream(data: data, offsets: offsets, numbers: numbers)
    }

    private func memberNumbers(of stream: ObjectStream) -> [Int] { stream.numbers }

    /// `object` with references followed (a few levels, so a reference loop ends).
    mutating func resolve(_ object: PDFObject) -> PDFObject {
        var current = object
        var hops = 0
        while case .reference(let number, _) = current, hops < 8 {
            current = self.object(number) ?? .null
            hops += 1
        }
        return current
    }

    // MARK: Streams

    /// A stream decoded within what is left of the file's decode budget (nil when it cannot be decoded or the budget
    /// is spent).
    mutating func decodeCounted(_ object: PDFObject) -> [UInt8]? {
        guard decodeBudget > 0 else { return nil }
        let limit = min(decodeBudget, DocumentLimits.maximumDecodedStreamBytes)
        guard let data = try? decodeStream(object, limit: limit) else {
            // A failed decode may have inflated up to the limit before failing: that work counts too.
            decodeBudget -= limit
            return nil
        }
        decodeBudget -= max(1, data.count)
        return data
    }

    /// The decoded data of a stream, at most `limit` bytes: no filter, or FlateDecode with an optional PNG predictor
    /// (what cross-reference streams, object streams and most content streams use). Other filters are refused by name.
    func decodeStream(_ object: PDFObject, limit: Int = DocumentLimits.maximumDecodedStreamBytes) throws(DocumentError) -> [UInt8] {
        guard case .stream(let dictionary, let range) = object else { throw DocumentError("PDF object is not a stream") }
        let raw = bytes[range]
        var filters: [String] = []
        if let name = dictionary["Filter"]?.name { filters = [name] }
        if let array = dictionary["Filter"]?.array { filters = array.compactMap(\.name) }
        var parameters = dictionary["DecodeParms"]?.dictionary
        if let array = dictionary["DecodeParms"]?.array { parameters = array.first?.dictionary }
        switch filters {
        case []:
            guard raw.count <= limit else { throw DocumentError("PDF stream of \(raw.count) bytes; the limit is \(limit)") }
            return Array(raw)
        case ["FlateDecode"], ["Fl"]:
            let inflated = try Deflate.inflateZlib(raw, limit: limit)
            return try Self.unpredict(inflated, parameters: parameters)
        default:
            throw DocumentError("PDF stream uses the filter \(filters.joined(separator: ", ")); expected none or FlateDecode")
        }
    }

    /// Undoes a PNG predictor (`/Predictor` 10–15): each row is a filter-type byte then the row.
    static func unpredict(_ data: [UInt8], parameters: [String: PDFObject]?) throws(DocumentError) -> [UInt8] {
        let predictor = parameters?["Predictor"]?.integer ?? 1
        guard predictor >= 10 else {
            guard predictor == 1 else { throw DocumentError("PDF stream uses TIFF predictor \(predictor); expected none or PNG") }
            return data
        }
        let colors = max(1, min(parameters?["Colors"]?.integer ?? 1, 32))
        let bits = max(1, min(parameters?["BitsPerComponent"]?.integer ?? 8, 16))
        let columns = max(1, min(parameters?["Columns"]?.integer ?? 1, 1 << 20))
        let bytesPerPixel = max(1, (colors * bits + 7) / 8)
        let rowLength = (colors * bits * columns + 7) / 8
        guard rowLength < data.count else { throw DocumentError("PDF stream's predictor rows (\(rowLength) bytes) are longer than its data") }
        var out: [UInt8] = []
        out.reserveCapacity(data.count)
        var previous = [UInt8](repeating: 0, count: rowLength)
        var position = 0
        while position < data.count {
            let type = data[position]
            position += 1
            var row = [UInt8](repeating: 0, count: rowLength)
            for index in 0..<rowLength where position + index < data.count { row[index] = data[position + index] }
            position += rowLength
            for index in 0..<rowLength {
                let left = index >= bytesPerPixel ? row[index - bytesPerPixel] : 0
                let up = previous[index]
                let upLeft = index >= bytesPerPixel ? previous[index - bytesPerPixel] : 0
                switch type {
                case 1: row[index] = row[index] &+ left
                case 2: row[index] = row[index] &+ up
                case 3: row[index] = row[index] &+ UInt8((Int(left) + Int(up)) / 2)
                case 4:
                    let estimate = Int(left) + Int(up) - Int(upLeft)
                    let toLeft = abs(estimate - Int(left))
                    let toUp = abs(estimate - Int(up))
                    let toUpLeft = abs(estimate - Int(upLeft))
                    let chosen = toLeft <= toUp && toLeft <= toUpLeft ? left : (toUp <= toUpLeft ? up : upLeft)
                    row[index] = row[index] &+ chosen
                default: break
                }
            }
            out += row
            previous = row
        }
        return out
    }
}
