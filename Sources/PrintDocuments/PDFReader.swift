/// A page's size in PostScript points (1/72 inch), as its MediaBox gives it.
public struct PageSize: Sendable, Equatable, Hashable, CustomStringConvertible {
    public var width: Int
    public var height: Int
    public init(width: Int, height: Int) {
        self.width = width
        self.height = height
    }

    /// ISO A4, 210 × 297 mm.
    public static let a4 = PageSize(width: 595, height: 842)
    public static let a4Landscape = PageSize(width: 842, height: 595)
    /// US Letter, what a PDF without any MediaBox is shown as.
    public static let letter = PageSize(width: 612, height: 792)

    public var isLandscape: Bool { width > height }
    public var rotated: PageSize { PageSize(width: height, height: width) }
    public var description: String { "\(width) x \(height) pts" }
}

/// One PDFPage per PDF page: what the generated documents show, so a printout says which page of what it is.
public struct PDFPage: Sendable, Equatable {
    public var lines: [String]
    public init(lines: [String]) { self.lines = lines }
}

/// What a print host needs of a PDF: how many pages, how big, and — for PDFs this module wrote — what they say.
public enum PDFReader {
    /// The page count a real reader reports: trailer → /Root → /Pages → /Count, through the cross-reference table or
    /// stream, or (when that is broken) through objects found by scanning the file. A /Pages without a usable /Count is
    /// counted by walking its /Kids.
    ///
    /// Throws for data that is not a PDF (no `%PDF-` header), a PDF without a page tree, and a count beyond
    /// ``DocumentLimits/maximumPages``, each with a message saying which.
    public static func pageCount(_ bytes: [UInt8]) throws(DocumentError) -> Int {
        try pageCount(of: try PDFInspection(bytes))
    }

    private static func pageCount(of document: PDFInspection) throws(DocumentError) -> Int {
        guard document.pageTreeFound else { throw DocumentError("PDF without a page tree: \(document.pageTreeProblem)") }
        let count = document.declaredCount ?? document.leaves.count
        guard count <= DocumentLimits.maximumPages, document.leaves.count <= DocumentLimits.maximumPages else {
            throw DocumentError("PDF claims \(max(count, document.leaves.count)) pages; the limit is \(DocumentLimits.maximumPages)")
        }
        return count
    }

    /// How many of a file's first bytes ``pageCount(head:end:fileSize:)`` takes: where the header may be.
    public static let headBytes = PDFFile.headerSearch
    /// The fewest last bytes ``pageCount(head:end:fileSize:)`` takes (its `startxref` is looked for in the last 4096).
    public static let minimumEndBytes = 4096

    /// ``pageCount(_:)`` of a file of which only the first and last bytes were kept, for a reader that saw the file
    /// stream past (MiG's page counter, so that a spooled PDF need not be read back): the same count when it returns
    /// one, and nil when it cannot tell without the bytes in between — a cross-reference or page-tree object before
    /// `end`, a broken cross-reference the repair scan would read the whole file for — or when ``pageCount(_:)`` would
    /// throw (its message is that reader's to give).
    ///
    /// - parameters:
    ///   - head: the file's first `min(fileSize, headBytes)` bytes.
    ///   - end: its last bytes, at least ``minimumEndBytes`` of them (or the whole file).
    ///   - fileSize: its size.
    public static func pageCount(head: [UInt8], end: [UInt8], fileSize: Int) -> Int? {
        guard head.count == min(fileSize, headBytes), end.count <= fileSize else { return nil }
        if end.count == fileSize { return try? pageCount(end) }
        guard end.count >= minimumEndBytes, let headerOffset = head.firstOffset(of: PDFFile.header, in: 0..<head.count) else { return nil }
        let window = PDFFile.Window(base: fileSize - end.count)
        guard let file = try? PDFFile(end: end, window: window, headerOffset: headerOffset) else { return nil }
        let document = PDFInspection(file)
        guard !window.neededEarlierBytes else { return nil }
        return try? pageCount(of: document)
    }

    /// The text lines of each page, for PDFs written by ``PDFWriter`` (nil for any other PDF, or one that cannot be
    /// read), so trimming and n-up can carry the pages' identities.
    public static func pageLines(_ bytes: [UInt8]) -> [[String]]? {
        guard let document = try? PDFInspection(bytes, readingContents: true) else { return nil }
        return document.lines
    }

    /// Each page's MediaBox size, in page order; nil when the bytes are not a readable PDF with a page tree.
    public static func pageSizes(_ bytes: [UInt8]) -> [PageSize]? {
        guard let document = try? PDFInspection(bytes), document.pageTreeFound else { return nil }
        return document.leaves.map(\.size)
    }
}

/// Everything the converters learn from a PDF in one pass: structure problems (for Ghostscript's and pdftops'
/// messages), the page tree, the document information, and page texts when the PDF is one of ours.
struct PDFInspection {
    struct Leaf {
        /// nil when the page tree names a page object that is not in the file (a truncated download).
        var dictionary: [String: PDFObject]?
        var size: PageSize
        /// The standard fonts the page's resources name without embedding them (what a renderer must substitute).
        var fonts: [String] = []
    }

    var diagnostics: PDFFile.Diagnostics
    var byteCount: Int
    var catalogFound = false
    var pageTreeFound = false
    var pageTreeProblem = "no trailer /Root leads to a catalog"
    /// /Count of the root /Pages node, when it is a non-negative integer.
    var declaredCount: Int?
    /// The page leaves in order, at most one more than ``DocumentLimits/maximumPages``.
    var leaves: [Leaf] = []
    /// Objects the cross-reference information knows (poppler compares /Count with it).
    var objectCount = 0
    var title: String?
    var producer: String?
    /// Written by ``PDFWriter`` (its /Creator mark), so its text can be read back.
    var isOurs = false
    /// Each page's drawing (sanitised content operators) when the PDF is ours; [] for a page object that is missing.
    var pageContents: [[UInt8]]?
    var creator: String?

    /// Each page's text lines, when the PDF is ours.
    var lines: [[String]]? { pageContents?.map(Self.textLines) }

    init(_ bytes: [UInt8], readingContents: Bool = false) throws(DocumentError) {
        self.init(try PDFFile(bytes), readingContents: readingContents)
    }

    init(_ file: PDFFile, readingContents: Bool = false) {
        var file = file
        byteCount = file.size
        diagnostics = file.diagnostics
        objectCount = max(file.trailer["Size"]?.integer ?? 0, file.entries.count + 1)
        if let info = file.trailer["Info"].map({ file.resolve($0).dictionary }) ?? nil {
            title = info["Title"].flatMap { file.resolve($0).string }.map(Self.textString)
            producer = info["Producer"].flatMap { file.resolve($0).string }.map(Self.textString)
            creator = info["Creator"].flatMap { file.resolve($0).string }.map(Self.textString)
            isOurs = creator == PDFWriter.mark
        }
        walkPageTree(&file)
        if isOurs, pageTreeFound, readingContents {
            pageContents = leaves.map { leaf in leaf.dictionary.map { Sheet.sanitize(Self.content(of: $0, in: &file)) } ?? [] }
        }
        diagnostics = file.diagnostics
    }

    private mutating func walkPageTree(_ file: inout PDFFile) {
        guard let rootReference = file.trailer["Root"], let catalog = file.resolve(rootReference).dictionary else { return }
        catalogFound = true
        guard let pagesValue = catalog["Pages"], case .dictionary(let pages) = file.resolve(pagesValue),
            pages["Kids"] != nil || pages["Count"] != nil
        else {
            pageTreeProblem = "the catalog has no /Pages dictionary"
            return
        }
        pageTreeFound = true
        if let count = pages["Count"].map({ file.resolve($0) })?.integer, count >= 0 { declaredCount = count }
        // Depth-first, in order, with inherited MediaBox; each node visited once, so a loop in /Kids ends.
        var visited = Set<Int>()
        if let number = pagesValue.referenceNumber { visited.insert(number) }
        let rootBox = Self.mediaBox(pages["MediaBox"], &file) ?? .letter
        var levels = [Self.kids(of: pages, box: rootBox, resources: pages["Resources"], depth: 0, &file)]
        while !levels.isEmpty {
            guard let (kid, inherited, inheritedResources, depth) = levels[levels.count - 1].popLast() else {
                levels.removeLast()
                continue
            }
            guard leaves.count <= DocumentLimits.maximumPages else { return }
            if let number = kid.referenceNumber {
                guard !visited.contains(number) else { continue }
                visited.insert(number)
            }
            guard case .dictionary(let dictionary) = file.resolve(kid) else {
                leaves.append(Leaf(dictionary: nil, size: inherited))
                continue
            }
            let box = Self.mediaBox(dictionary["MediaBox"], &file) ?? inherited
            let resources = dictionary["Resources"] ?? inheritedResources
            let type = dictionary["Type"]?.name
            if type == "Pages" || (type != "Page" && dictionary["Kids"] != nil) {
                guard depth < DocumentLimits.maximumNesting else { continue }
                levels.append(Self.kids(of: dictionary, box: box, resources: resources, depth: depth, &file))
            } else {
                leaves.append(Leaf(dictionary: dictionary, size: box, fonts: Self.substitutedFonts(resources, &file)))
            }
        }
    }

    /// A node's kids, last first (so popping yields them in order), each with the MediaBox and Resources it inherits.
    private static func kids(
        of node: [String: PDFObject], box: PageSize, resources: PDFObject?, depth: Int,
        _ file: inout PDFFile
    ) -> [(PDFObject, PageSize, PDFObject?, Int)] {
        let kids = node["Kids"].map { file.resolve($0) }?.array ?? []
        return kids.reversed().map { ($0, box, resources, depth + 1) }
    }

    /// The base names of the standard-14 fonts in `resources` that are not embedded, in name order.
    private static func substitutedFonts(_ resources: PDFObject?, _ file: inout PDFFile) -> [String] {
        guard let resources, let fonts = file.resolve(resources).dictionary?["Font"].map({ file.resolve($0) })?.dictionary else { return [] }
        var names: [String] = []
        for key in fonts.keys.sorted().prefix(32) {
            guard let value = fonts[key], let font = file.resolve(value).dictionary, let base = font["BaseFont"]?.name,
                Ghostscript.substitutes[base] != nil
            else { continue }
            let descriptor = font["FontDescriptor"].map { file.resolve($0) }?.dictionary
            let embedded = ["FontFile", "FontFile2", "FontFile3"].contains { descriptor?[$0] != nil }
            if !embedded, !names.contains(base) { names.append(base) }
        }
        return names
    }

    private static func mediaBox(_ value: PDFObject?, _ file: inout PDFFile) -> PageSize? {
        guard let value, let numbers = file.resolve(value).array?.compactMap({ file.resolve($0).number }), numbers.count == 4 else {
            return nil
        }
        let width = abs(numbers[2] - numbers[0])
        let height = abs(numbers[3] - numbers[1])
        guard width.isFinite, height.isFinite, width >= 1, height >= 1, width < 1e6, height < 1e6 else { return nil }
        return PageSize(width: Int(width.rounded()), height: Int(height.rounded()))
    }

    /// A PDF text string: UTF-16BE with a byte-order mark, else PDFDocEncoding (Latin-1 for what matters here).
    static func textString(_ bytes: [UInt8]) -> String {
        if bytes.count >= 2, bytes[0] == 0xFE, bytes[1] == 0xFF {
            var units: [UInt16] = []
            var index = 2
            while index + 1 < bytes.count {
                units.append(UInt16(bytes[index]) << 8 | UInt16(bytes[index + 1]))
                index += 2
            }
            return String(decoding: units, as: UTF16.self)
        }
        return WinAnsi.decode(bytes)
    }

    /// A page's content streams, decoded and joined (streams that cannot be decoded are skipped).
    static func content(of page: [String: PDFObject], in file: inout PDFFile) -> [UInt8] {
        var streams: [PDFObject] = []
        switch page["Contents"] {
        case .reference(let number, _)?:
            if let object = file.object(number) {
                if let array = object.array { streams = array.map { file.resolve($0) } } else { streams = [object] }
            }
        case .array(let array)?: streams = array.map { file.resolve($0) }
        default: break
        }
        var content: [UInt8] = []
        for stream in streams {
            guard let data = file.decodeCounted(stream) else { continue }
            content += data
            content.append(0x0A)
        }
        return content
    }

    /// The strings a page shows, one per text-showing operator (Tj, ', ", TJ), in content order.
    static func textLines(_ content: [UInt8]) -> [String] {
        var scanner = PDFScanner(content)
        var operands: [PDFScanner.Token] = []
        var lines: [String] = []
        while let token = try? scanner.nextToken() {
            switch token {
            case .keyword("Tj"), .keyword("'"), .keyword("\""):
                if case .string(let bytes)? = operands.last { lines.append(WinAnsi.decode(bytes)) }
                operands.removeAll()
            case .keyword("TJ"):
                var text: [UInt8] = []
                for operand in operands { if case .string(let bytes) = operand { text += bytes } }
                lines.append(WinAnsi.decode(text))
                operands.removeAll()
            case .keyword:
                operands.removeAll()
            default:
                if operands.count < 64 { operands.append(token) }
            }
        }
        return lines
    }
}
