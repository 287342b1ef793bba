/// Placing N pages on a sheet: a grid of equal cells, each page scaled to fit its cell and centred, filled row by row
/// from the top left.
enum Imposition {
    /// Sheets for `pages` (each a size and its drawing), `perSheet` to a sheet of `sheetSize` in a `columns` × `rows` grid.
    static func sheets(_ pages: [(size: PageSize, content: [UInt8])], perSheet: Int, sheetSize: PageSize, columns: Int, rows: Int) -> [Sheet] {
        let cellWidth = Double(sheetSize.width) / Double(columns)
        let cellHeight = Double(sheetSize.height) / Double(rows)
        var sheets: [Sheet] = []
        var start = 0
        while start < pages.count {
            let group = pages[start..<min(pages.count, start + perSheet)]
            let cells = group.enumerated().map { slot, page -> Sheet.Cell in
                let column = slot % columns
                let row = slot / columns
                let scale = min(cellWidth / Double(page.size.width), cellHeight / Double(page.size.height))
                let x = cellWidth * Double(column) + (cellWidth - Double(page.size.width) * scale) / 2
                let y = Double(sheetSize.height) - cellHeight * Double(row + 1) + (cellHeight - Double(page.size.height) * scale) / 2
                return Sheet.Cell(source: page.size, content: page.content, scale: scale, x: x, y: y)
            }
            sheets.append(Sheet(size: sheetSize, cells: cells))
            start += perSheet
        }
        return sheets
    }

    /// The pages of a readable PDF, each with its drawing when it is ours (blank otherwise: the emulation draws only
    /// what it wrote).
    static func pages(of document: PDFInspection) -> [(size: PageSize, content: [UInt8])] {
        document.leaves.enumerated().map { index, leaf in (leaf.size, document.pageContents?[index] ?? []) }
    }
}

/// rubypdf's nup_pdf (`java -jar nup_pdf.jar IN OUT N`, N = 2, 4, 8 or 16): ⌈pages/N⌉ sheets, laid out as iText's NUp
/// tool (which nup_pdf wraps) lays them: for N = 2^k, the sheet is the first page's size, turned a quarter for odd k;
/// cells halve the long side k times (2-up: 2 × 1 on landscape, 4-up: 2 × 2 portrait, 8-up: 4 × 2 landscape,
/// 16-up: 4 × 4 portrait). Success prints nothing.
///
/// Its failure messages are not published; these are plausible iText 2 (com.lowagie) exceptions, uncaught
/// (stderr, exit status 1), and a usage line for a wrong N.
public enum NUpPDF {
    public static let usage = "Usage: java -jar nup_pdf.jar <input.pdf> <output.pdf> <2|4|8|16> [-b]\n"

    /// Imposes `input` (read from `inputPath`) `perSheet` to a sheet, written to `outputPath`.
    public static func convert(input: [UInt8], inputPath: String, outputPath: String, perSheet: Int) -> ConversionResult {
        guard let power = [2: 1, 4: 2, 8: 3, 16: 4][perSheet] else { return .failure(ToolOutput(stdout: usage, exitStatus: 1)) }
        if let refusal = ConversionResult.refusalIfTooLarge(input) { return refusal }
        guard input.starts(with: PDFFile.header), let document = try? PDFInspection(input, readingContents: true) else {
            return javaException("java.io.IOException: PDF header signature not found.", frame: "com.lowagie.text.pdf.PRTokeniser.checkPdfHeader")
        }
        guard document.pageTreeFound, document.diagnostics.trailerFound else {
            return javaException(
                "com.lowagie.text.exceptions.InvalidPdfException: Rebuild failed: trailer not found.; Original message: PDF startxref not found.",
                frame: "com.lowagie.text.pdf.PdfReader.readPdf")
        }
        let pages = Imposition.pages(of: document)
        guard let first = pages.first else {
            return javaException(
                "ExceptionConverter: java.io.IOException: The document has no pages.", frame: "com.lowagie.text.pdf.PdfPages.writePageTree")
        }
        guard pages.count <= DocumentLimits.maximumPages else { return .tooManyPages(pages.count) }
        let sheetSize = power % 2 == 0 ? first.size : first.size.rotated
        let rows = 1 << (power / 2)
        let columns = perSheet / rows
        let sheets = Imposition.sheets(pages, perSheet: perSheet, sheetSize: sheetSize, columns: columns, rows: rows)
        let pdf = PDFWriter.document(title: document.title, producer: PDFWriter.mark, creator: document.creator, sheets: sheets)
        return ConversionResult(output: pdf, outputPath: outputPath, pages: sheets.count, printed: ToolOutput())
    }

    /// As above; `input` nil means the file does not exist (iText's RandomAccessFileOrArray message).
    public static func convert(input: [UInt8]?, inputPath: String, outputPath: String, perSheet: Int) -> ConversionResult {
        guard let input else {
            guard [2, 4, 8, 16].contains(perSheet) else { return .failure(ToolOutput(stdout: usage, exitStatus: 1)) }
            return javaException(
                "java.io.IOException: \(inputPath) not found as file or resource.", frame: "com.lowagie.text.pdf.RandomAccessFileOrArray.<init>")
        }
        return convert(input: input, inputPath: inputPath, outputPath: outputPath, perSheet: perSheet)
    }

    static func javaException(_ message: String, frame: String) -> ConversionResult {
        .failure(
            ToolOutput(
                stderr: "Exception in thread \"main\" \(message)\n\tat \(frame)(Unknown Source)\n\tat NUp.main(Unknown Source)\n",
                exitStatus: 1))
    }
}

/// Multivalent's Impose (`java -classpath Multivalent.jar tool.pdf.Impose -paper a4 -nup 6 IN`): writes
/// `<IN without .pdf>-up.pdf` beside the input, ⌈pages/N⌉ sheets of the named paper, in whichever orientation and
/// grid (columns × rows = N) shows the pages largest — 6-up A4 portrait pages: 3 × 2 on landscape A4.
/// Success prints nothing; failures are plausible Multivalent exceptions (not published), uncaught: stderr, exit 1.
public enum MultivalentImpose {
    /// Paper names Impose takes, in points.
    public static let papers: [String: PageSize] = [
        "a3": PageSize(width: 842, height: 1191), "a4": .a4, "a5": PageSize(width: 420, height: 595),
        "letter": .letter, "legal": PageSize(width: 612, height: 1008), "tabloid": PageSize(width: 792, height: 1224),
    ]
    public static let usage = "Usage: java tool.pdf.Impose [-paper a3|a4|a5|letter|legal|tabloid] [-nup N] <file.pdf>...\n"

    /// Where Impose writes: the input path less a final `.pdf` (any case), plus `-up.pdf`.
    public static func outputPath(for inputPath: String) -> String {
        let stem = inputPath.lowercased().hasSuffix(".pdf") ? String(inputPath.dropLast(4)) : inputPath
        return stem + "-up.pdf"
    }

    /// Imposes `input` (read from `inputPath`) `perSheet` to a sheet of `paper`; the result's `outputPath` is
    /// ``outputPath(for:)``.
    public static func impose(input: [UInt8], inputPath: String, perSheet: Int, paper: String) -> ConversionResult {
        guard (1...64).contains(perSheet), let paperSize = papers[paper.lowercased()] else {
            return .failure(ToolOutput(stdout: usage, exitStatus: 1))
        }
        if let refusal = ConversionResult.refusalIfTooLarge(input) { return refusal }
        guard input.starts(with: PDFFile.header), let document = try? PDFInspection(input, readingContents: true),
            document.pageTreeFound
        else {
            return exception("java.io.IOException: \(inputPath): not a PDF, or a damaged one (no page tree)")
        }
        guard document.leaves.count <= DocumentLimits.maximumPages else { return .tooManyPages(document.leaves.count) }
        let pages = Imposition.pages(of: document)
        guard !pages.isEmpty else { return exception("java.lang.IllegalArgumentException: \(inputPath) has no pages") }
        // The layout that makes the (first) page largest: every orientation and every factorisation of N.
        let page = pages[0].size
        var best: (scale: Double, sheet: PageSize, columns: Int, rows: Int) = (0, paperSize, perSheet, 1)
        for sheet in [paperSize, paperSize.rotated] {
            for columns in 1...perSheet where perSheet % columns == 0 {
                let rows = perSheet / columns
                let scale = min(Double(sheet.width) / Double(columns) / Double(page.width), Double(sheet.height) / Double(rows) / Double(page.height))
                if scale > best.scale + 1e-9 { best = (scale, sheet, columns, rows) }
            }
        }
        let sheets = Imposition.sheets(pages, perSheet: perSheet, sheetSize: best.sheet, columns: best.columns, rows: best.rows)
        let pdf = PDFWriter.document(title: document.title, producer: PDFWriter.mark, creator: document.creator, sheets: sheets)
        return ConversionResult(output: pdf, outputPath: outputPath(for: inputPath), pages: sheets.count, printed: ToolOutput())
    }

    /// As above; `input` nil means the file does not exist.
    public static func impose(input: [UInt8]?, inputPath: String, perSheet: Int, paper: String) -> ConversionResult {
        guard let input else { return exception("java.io.FileNotFoundException: \(inputPath) (No such file or directory)") }
        return impose(input: input, inputPath: inputPath, perSheet: perSheet, paper: paper)
    }

    static func exception(_ message: String) -> ConversionResult {
        .failure(ToolOutput(stderr: "Exception in thread \"main\" \(message)\n\tat tool.pdf.Impose.main(Unknown Source)\n", exitStatus: 1))
    }
}
