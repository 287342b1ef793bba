/// What an emulated command-line tool printed and how it exited.
public struct ToolOutput: Sendable, Equatable {
    public var stdout: String
    public var stderr: String
    public var exitStatus: Int32
    public init(stdout: String = "", stderr: String = "", exitStatus: Int32 = 0) {
        self.stdout = stdout
        self.stderr = stderr
        self.exitStatus = exitStatus
    }
}

/// What a converter run produced: the file it writes (if any), its pages, and what it printed.
public struct ConversionResult: Sendable, Equatable {
    public var output: [UInt8]?
    public var outputPath: String?
    public var pages: Int
    public var printed: ToolOutput
}

/// yeokm1's docs-to-pdf-converter 1.7 (`java -jar docs-to-pdf-converter-1.7.jar -i IN -o OUT`): DOC, DOCX, PPT,
/// PPTX and ODT to PDF, with as many pages as the input has (slides become landscape pages).
///
/// The type comes from the input's extension, case-insensitively (the app's own PDF check is case-sensitive, so
/// `X.PDF` arrives here, and a PDF is passed through rewritten). The tool's failures are reported on stdout with
/// exit status 1 — the app treats any stdout of this step as failure, so that is where a user sees them.
public enum DocsToPDFConverter {
    public static func convert(input: [UInt8], inputPath: String, outputPath: String) -> ConversionResult {
        let extensionText = inputPath.split(separator: ".").last.map { String($0).lowercased() } ?? ""
        let base = inputPath.split(separator: "/").last.map(String.init) ?? inputPath
        let pages: Int
        var landscape = false
        do {
            if extensionText == "pdf" {
                pages = try PDFReader.pageCount(input)
            } else if let format = OfficeFormat(rawValue: extensionText) {
                pages = try OfficeDocument.pageCount(input, format: format)
                landscape = format.isPresentation
            } else {
                return failure("Input file extension .\(extensionText) is not supported; expected doc, docx, ppt, pptx or odt\n")
            }
        } catch {
            return failure("Error converting \(inputPath): \(error.message)\n")
        }
        let lines = (1...max(1, pages)).map { PDFPage(lines: ["\(base)", "\(landscape ? "Slide" : "Page") \($0) of \(pages)"]) }
        let pdf = PDFWriter.document(title: base, pages: pages == 0 ? [] : lines, landscape: landscape)
        return ConversionResult(output: pdf, outputPath: outputPath, pages: pages, printed: ToolOutput())
    }

    private static func failure(_ message: String) -> ConversionResult {
        ConversionResult(output: nil, outputPath: nil, pages: 0, printed: ToolOutput(stdout: message, exitStatus: 1))
    }
}

/// Ghostscript 10.0 (Debian 12) with `-sDEVICE=pdfwrite -dNOPAUSE -dBATCH -dSAFER -dFirstPage=S -dLastPage=E`:
/// keeps pages S…E. Its messages are the real tool's, captured from `gs` 10.00.0 on Debian 12 — the banner and the
/// progress on stdout:
///
///     GPL Ghostscript 10.0.0 (2022-09-21)
///     Copyright (C) 2022 Artifex Software, Inc.  All rights reserved.
///     This software is supplied under the GNU AGPLv3 and comes with NO WARRANTY:
///     see the file COPYING for details.
///     Processing pages 2 through 3.
///     Page 2
///     Loading font Helvetica (or substitute) from /usr/share/ghostscript/10.00.0/Resource/Font/NimbusSans-Regular
///     Page 3
///
/// FirstPage beyond the end (exit 0, and a blank one-page PDF is still written):
///
///     Requested FirstPage is greater than the number of pages in the file: 3
///        No pages will be processed (FirstPage > LastPage).
///
/// A file that is not PDF: `Error: /undefined in hello` and the interpreter's stacks on stdout, then
/// `GPL Ghostscript 10.00.0: Unrecoverable error, exit code 1` on stderr (exit 1); a missing one:
/// `Error: /undefinedfilename in (nope.pdf)` … `Last OS error: No such file or directory`.
public enum Ghostscript {
    public static let banner = """
        GPL Ghostscript 10.0.0 (2022-09-21)
        Copyright (C) 2022 Artifex Software, Inc.  All rights reserved.
        This software is supplied under the GNU AGPLv3 and comes with NO WARRANTY:
        see the file COPYING for details.

        """
    static let fontLine = "Loading font Helvetica (or substitute) from /usr/share/ghostscript/10.00.0/Resource/Font/NimbusSans-Regular\n"
    static let unrecoverable = "GPL Ghostscript 10.00.0: Unrecoverable error, exit code 1\n"

    /// `input` nil means the file does not exist.
    public static func pdfwrite(input: [UInt8]?, inputPath: String, outputPath: String, firstPage: Int?, lastPage: Int?) -> ConversionResult {
        guard let input else {
            return ConversionResult(output: nil, outputPath: nil, pages: 0, printed: ToolOutput(
                stdout: banner + "Error: /undefinedfilename in (\(inputPath))\nOperand stack:\n\nExecution stack:\n   %interp_exit   .runexec2   --nostringval--   --nostringval--   --nostringval--   2   %stopped_push   --nostringval--   --nostringval--   --nostringval--   false   1   %stopped_push\nDictionary stack:\n   --dict:770/1123(ro)(G)--   --dict:0/20(G)--   --dict:75/200(L)--\nCurrent allocation mode is local\nLast OS error: No such file or directory\n",
                stderr: unrecoverable, exitStatus: 1))
        }
        let count: Int
        do {
            count = try PDFReader.pageCount(input)
        } catch {
            let word = String(decoding: input.prefix(while: { $0 > 32 && $0 < 127 }).prefix(40), as: UTF8.self)
            return ConversionResult(output: nil, outputPath: nil, pages: 0, printed: ToolOutput(
                stdout: banner + "Error: /undefined in \(word)\nOperand stack:\n\nExecution stack:\n   %interp_exit   .runexec2   --nostringval--   --nostringval--   --nostringval--   2   %stopped_push\nDictionary stack:\n   --dict:770/1123(ro)(G)--   --dict:0/20(G)--   --dict:75/200(L)--\nCurrent allocation mode is local\nCurrent file position is \(word.utf8.count + 1)\n",
                stderr: unrecoverable, exitStatus: 1))
        }
        let first = max(1, firstPage ?? 1)
        let last = min(count, lastPage ?? count)
        let title = inputPath.split(separator: "/").last.map(String.init) ?? inputPath
        guard first <= count else {
            let blank = PDFWriter.document(title: title, pages: [PDFPage(lines: [])])
            return ConversionResult(output: blank, outputPath: outputPath, pages: 1, printed: ToolOutput(
                stdout: banner + "\nRequested FirstPage is greater than the number of pages in the file: \(count)\n   No pages will be processed (FirstPage > LastPage).\n"))
        }
        guard first <= last else {
            let blank = PDFWriter.document(title: title, pages: [PDFPage(lines: [])])
            return ConversionResult(output: blank, outputPath: outputPath, pages: 1, printed: ToolOutput(
                stdout: banner + "   No pages will be processed (FirstPage > LastPage).\n"))
        }
        let lines = PDFReader.pageLines(input) ?? []
        let kept = (first...last).map { page in page - 1 < lines.count ? PDFPage(lines: lines[page - 1]) : PDFPage(lines: ["Page \(page)"]) }
        var printed = banner + "Processing pages \(first) through \(last).\n"
        for page in first...last {
            printed += "Page \(page)\n"
            if page == first { printed += fontLine }
        }
        return ConversionResult(output: PDFWriter.document(title: title, pages: kept), outputPath: outputPath, pages: kept.count,
                                printed: ToolOutput(stdout: printed))
    }
}

/// nup_pdf (`java -jar nup_pdf.jar IN OUT N`): N pages per sheet, ⌈pages/N⌉ sheets, landscape for 2 and 8 per sheet.
public enum NUpPDF {
    public static func convert(input: [UInt8], inputPath: String, outputPath: String, perSheet: Int) -> ConversionResult {
        guard [2, 4, 8, 16].contains(perSheet) else {
            return ConversionResult(output: nil, outputPath: nil, pages: 0, printed: ToolOutput(
                stdout: "Usage: java -jar nup_pdf.jar <input.pdf> <output.pdf> <2|4|8|16>\n", exitStatus: 1))
        }
        return impose(input, inputPath: inputPath, outputPath: outputPath, perSheet: perSheet, landscape: perSheet == 2 || perSheet == 8,
                      tool: "nup_pdf")
    }

    static func impose(_ input: [UInt8], inputPath: String, outputPath: String, perSheet: Int, landscape: Bool, tool: String) -> ConversionResult {
        let count: Int
        do {
            count = try PDFReader.pageCount(input)
        } catch {
            return ConversionResult(output: nil, outputPath: nil, pages: 0, printed: ToolOutput(
                stdout: "\(tool): cannot read \(inputPath): \(error.message)\n", exitStatus: 1))
        }
        let sheets = (count + perSheet - 1) / perSheet
        let pages = (0..<sheets).map { sheet in
            let first = sheet * perSheet + 1, last = min(count, (sheet + 1) * perSheet)
            return PDFPage(lines: ["Sheet \(sheet + 1) of \(sheets): pages \(first)-\(last), \(perSheet) per sheet"])
        }
        let title = inputPath.split(separator: "/").last.map(String.init) ?? inputPath
        return ConversionResult(output: PDFWriter.document(title: title, pages: pages, landscape: landscape), outputPath: outputPath,
                                pages: sheets, printed: ToolOutput())
    }
}

/// Multivalent's Impose (`java -classpath Multivalent.jar tool.pdf.Impose -paper a4 -nup 6 IN`): writes
/// `<IN without .pdf>-up.pdf` with ⌈pages/N⌉ sheets.
public enum MultivalentImpose {
    public static func impose(input: [UInt8], inputPath: String, perSheet: Int, paper: String) -> ConversionResult {
        guard perSheet >= 1, perSheet <= 64, paper.lowercased() == "a4" || paper.lowercased() == "letter" else {
            return ConversionResult(output: nil, outputPath: nil, pages: 0, printed: ToolOutput(
                stdout: "Usage: java tool.pdf.Impose [-paper a4|letter] [-nup N] <file.pdf>\n", exitStatus: 1))
        }
        let stem = inputPath.hasSuffix(".pdf") ? String(inputPath.dropLast(4)) : inputPath
        return NUpPDF.impose(input, inputPath: inputPath, outputPath: stem + "-up.pdf", perSheet: perSheet, landscape: false, tool: "Impose")
    }
}

/// poppler's pdftops 22.12 (Debian 12): PDF to DSC PostScript with the same pages. Messages are the real tool's
/// (stderr, exit 1): `I/O Error: Couldn't open file 'x': No such file or directory.` for a missing file, and for one
/// that is not PDF: `Syntax Warning: May not be a PDF file (continuing anyway)`, `Syntax Error: Couldn't find trailer
/// dictionary` (twice), `Syntax Error: Couldn't read xref table`.
public enum PDFToPS {
    /// `input` nil means the file does not exist.
    public static func convert(input: [UInt8]?, inputPath: String, outputPath: String) -> ConversionResult {
        guard let input else {
            return ConversionResult(output: nil, outputPath: nil, pages: 0, printed: ToolOutput(
                stderr: "I/O Error: Couldn't open file '\(inputPath)': No such file or directory.\n", exitStatus: 1))
        }
        let count: Int
        do {
            count = try PDFReader.pageCount(input)
        } catch {
            let warning = input.starts(with: Array("%PDF-".utf8)) ? "" : "Syntax Warning: May not be a PDF file (continuing anyway)\n"
            return ConversionResult(output: nil, outputPath: nil, pages: 0, printed: ToolOutput(
                stderr: warning + "Syntax Error: Couldn't find trailer dictionary\nSyntax Error: Couldn't find trailer dictionary\nSyntax Error: Couldn't read xref table\n",
                exitStatus: 1))
        }
        let lines = PDFReader.pageLines(input) ?? []
        let pages = (0..<count).map { $0 < lines.count ? PDFPage(lines: lines[$0]) : PDFPage(lines: ["Page \($0 + 1)"]) }
        let title = inputPath.split(separator: "/").last.map(String.init) ?? inputPath
        let postScript = PostScriptWriter.document(title: title, creator: "pdftops 22.12.0", pages: pages)
        return ConversionResult(output: postScript, outputPath: outputPath, pages: count, printed: ToolOutput())
    }
}
