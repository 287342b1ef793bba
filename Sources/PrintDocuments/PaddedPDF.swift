/// A real PDF of an exact size, produced in pieces: what a test or a benchmark prints when it wants "a document of N
/// bytes". Every reader (ours, qpdf, a printer) counts its pages: one page per ``bytesPerPage`` bytes unless told,
/// the same count a printer that cannot read the document would estimate. The size is made up by comment lines
/// right after the header, so a 1 GiB document costs one 64 KiB block of padding and the small skeleton in memory.
public struct PaddedPDF: Sendable {
    /// The exact size in bytes.
    public let byteCount: Int64
    /// The number of pages.
    public let pages: Int
    /// Pages of a generated document when the caller does not choose: one per this many bytes.
    public static let bytesPerPage: Int64 = 100_000
    private let skeleton: [UInt8]

    /// - parameters:
    ///   - byteCount: the size the document must have.
    ///   - pages: how many pages; nil for one per ``bytesPerPage`` bytes (at least 1, at most
    ///     `DocumentLimits.maximumPages`).
    /// - throws: when `byteCount` is smaller than the smallest PDF of that many pages, or `pages` is out of range.
    public init(byteCount: Int64, pages: Int? = nil) throws(DocumentError) {
        let pages = pages ?? Int(min(Int64(DocumentLimits.maximumPages), max(1, (byteCount + Self.bytesPerPage - 1) / Self.bytesPerPage)))
        guard (1...DocumentLimits.maximumPages).contains(pages) else {
            throw DocumentError("a generated PDF has 1 to \(DocumentLimits.maximumPages) pages, not \(pages)")
        }
        let smallest = Self.skeleton(pages: pages, padding: 0).count
        guard byteCount >= Int64(smallest) else {
            throw DocumentError("a generated PDF of \(pages) page\(pages == 1 ? "" : "s") takes at least \(smallest) bytes, not \(byteCount)")
        }
        self.byteCount = byteCount
        self.pages = pages
        // Only startxref's digits depend on the padding (the table's offsets are fixed-width): take the digits it
        // gains out of the padding. Where one more digit would overshoot, a last newline after %%EOF makes up the byte.
        var padding = byteCount - Int64(smallest)
        var skeleton = Self.skeleton(pages: pages, padding: padding)
        while Int64(skeleton.count) + padding > byteCount {
            padding -= Int64(skeleton.count) + padding - byteCount
            skeleton = Self.skeleton(pages: pages, padding: padding)
        }
        skeleton += [UInt8](repeating: 0x0A, count: Int(byteCount - padding - Int64(skeleton.count)))
        self.skeleton = skeleton
    }

    /// The smallest size a generated PDF of `pages` pages can have.
    public static func minimumBytes(pages: Int = 1) -> Int64 { Int64(skeleton(pages: pages, padding: 0).count) }

    /// The document's bytes in order, in pieces of at most `maximum` bytes (64 at least).
    public func makePieces(maximum: Int = 1 << 16) -> Pieces { Pieces(self, maximum: maximum) }

    /// The whole document in memory (small documents only).
    public var bytes: [UInt8] {
        var out: [UInt8] = []
        out.reserveCapacity(Int(byteCount))
        var pieces = makePieces()
        while let piece = pieces.next() { out += piece }
        return out
    }

    /// Reads a ``PaddedPDF`` front to back: header, padding, then objects and cross-reference table.
    public struct Pieces: IteratorProtocol, Sendable {
        private let skeleton: [UInt8]
        private let maximum: Int
        private var offset = 0
        private var paddingLeft: Int64
        private var paddingLine = 0

        init(_ document: PaddedPDF, maximum: Int) {
            skeleton = document.skeleton
            self.maximum = max(PaddedPDF.lineLength, maximum)
            paddingLeft = document.byteCount - Int64(document.skeleton.count)
        }

        public mutating func next() -> ArraySlice<UInt8>? {
            let header = PDFWriter.header.count
            if offset < header {
                let end = min(header, offset + maximum)
                defer { offset = end }
                return skeleton[offset..<end]
            }
            if paddingLeft > 0 { return padding() }
            guard offset < skeleton.count else { return nil }
            let end = min(skeleton.count, offset + maximum)
            defer { offset = end }
            return skeleton[offset..<end]
        }

        /// Comment lines of ``lineLength`` bytes; the last one shorter, so the padding ends exactly on a line end.
        private mutating func padding() -> ArraySlice<UInt8> {
            let block = PaddedPDF.paddingBlock
            if paddingLeft < Int64(PaddedPDF.lineLength) {
                // One short line: "\n" alone, or "%" and filler and "\n".
                let count = Int(paddingLeft)
                paddingLeft = 0
                return count == 1
                    ? block[(PaddedPDF.lineLength - 1)..<PaddedPDF.lineLength] : ([UInt8(ascii: "%")] + block[1..<count - 1] + [0x0A])[...]
            }
            // Whole lines, from the block, starting where the last piece stopped.
            let lines = min(
                Int(paddingLeft / Int64(PaddedPDF.lineLength)), maximum / PaddedPDF.lineLength,
                PaddedPDF.blockLines - paddingLine)
            let start = paddingLine * PaddedPDF.lineLength
            paddingLine = (paddingLine + lines) % PaddedPDF.blockLines
            paddingLeft -= Int64(lines * PaddedPDF.lineLength)
            return block[start..<start + lines * PaddedPDF.lineLength]
        }
    }

    static let lineLength = 64
    static let blockLines = 1024
    /// 1,024 comment lines of 64 bytes: "%", filler text, "\n".
    static let paddingBlock: [UInt8] = {
        let filler = Array("Workbench generated this padding to give the document its size. ".utf8)
        var line: [UInt8] = [UInt8(ascii: "%")]
        while line.count < lineLength - 1 { line.append(filler[(line.count - 1) % filler.count]) }
        line.append(0x0A)
        return Array((0..<blockLines).map { _ in line }.joined())
    }()

    private static func skeleton(pages: Int, padding: Int64) -> [UInt8] {
        PDFWriter.document(
            title: "Generated document", producer: PDFWriter.mark,
            sheets: (1...pages).map { Sheet.page(["Page \($0) of \(pages)"], size: .a4) }, padding: padding)
    }
}
