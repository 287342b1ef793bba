/// GPL Ghostscript 10.00.0 as Debian 12 ships it, running
/// `gs -sDEVICE=pdfwrite -dNOPAUSE -dBATCH -dSAFER -dFirstPage=S -dLastPage=E -sOutputFile=OUT IN`: it keeps pages
/// S…E (clamped to the document), and — the pdfwrite device being opened before the input is read — always writes
/// OUT, a blank A4 page when nothing was processed.
///
/// Its messages were captured from the real `gs` on Debian 12 and are reproduced exactly (stdout unless noted):
///
///     GPL Ghostscript 10.0.0 (2022-09-21)                                 ← banner, every run
///     Copyright (C) 2022 Artifex Software, Inc.  All rights reserved.
///     This software is supplied under the GNU AGPLv3 and comes with NO WARRANTY:
///     see the file COPYING for details.
///     Processing pages 2 through 4.                                       ← a normal trim, exit 0
///     Page 2
///     Loading font Helvetica (or substitute) from /usr/share/ghostscript/10.00.0/Resource/Font/NimbusSans-Regular
///     Page 3
///     Page 4
///
///     (banner)                                                            ← FirstPage 5 of a 3-page file, exit 0
///
///     Requested FirstPage is greater than the number of pages in the file: 3
///        No pages will be processed (FirstPage > LastPage).
///
///     (banner)                                                            ← "hello\n" (not a PDF): PostScript
///     Error: /undefined in hello
///     Operand stack:
///
///     Execution stack:
///        %interp_exit   .runexec2   --nostringval-- … %stopped_push   --nostringval--
///     Dictionary stack:
///        --dict:770/1123(ro)(G)--   --dict:0/20(G)--   --dict:75/200(L)--
///     Current allocation mode is local
///     Current file position is 6
///     GPL Ghostscript 10.00.0: Unrecoverable error, exit code 1           ← stderr; exit 1
///
///     (banner)                                                            ← missing input, exit 1
///     Error: /undefinedfilename in (nope.pdf)
///     Operand stack:
///     … Last OS error: No such file or directory                          (stderr as above)
///
/// Also captured and reproduced: an empty file (banner only, exit 0); `<html>` or an unclosed `(` (`/syntaxerror in
/// /----nostringval----`, no file position); numbers before the word (`Operand stack:` lists them); a PDF without a
/// page tree (`**** Error: Couldn't initialise file.`, then the FirstPage message with 0 pages); /Count 0 (`****
/// Warning: PDF document has no pages.`, on stderr); FirstPage 0 and pages the tree names but the file lacks (`**** Error:
/// Couldn't get page info.` / `page not found.`); repaired files (the stderr summary "The following errors were
/// encountered at least once while processing this file:" with `no startxref token found`, `PDF file was repaired`,
/// `page tree root node /Count did not match the actual number of pages in the tree.`, and the producer's name).
/// Approximated: which repair reasons gs lists for other damage, the dictionary-stack counts after other PostScript,
/// and bytes above 0x7F in an echoed token (shown as Latin-1).
public enum Ghostscript {
    public static let banner = """
        GPL Ghostscript 10.0.0 (2022-09-21)
        Copyright (C) 2022 Artifex Software, Inc.  All rights reserved.
        This software is supplied under the GNU AGPLv3 and comes with NO WARRANTY:
        see the file COPYING for details.

        """
    /// The /Producer pdfwrite sets.
    public static let producer = "GPL Ghostscript 10.00.0"
    /// What the caller looks for in stdout when the range starts past the end.
    public static let firstPageTooLarge = "Requested FirstPage is greater than the number of pages in the file"
    static let postScriptFontLine =
        "Loading NimbusSans-Regular font from /usr/share/ghostscript/10.00.0/Resource/Font/NimbusSans-Regular... 4964272 3436169 1934424 645952 1 done.\n"
    static let unrecoverable = "GPL Ghostscript 10.00.0: Unrecoverable error, exit code 1\n"
    static let noPages = "   No pages will be processed (FirstPage > LastPage).\n"
    static let executionStack = "   %interp_exit   .runexec2   --nostringval--   --nostringval--   --nostringval--   2   %stopped_push"
    static let runStack =
        "   --nostringval--   --nostringval--   --nostringval--   false   1   %stopped_push   1990   1   3   %oparray_pop   1989   1   3   %oparray_pop   1977   1   3   %oparray_pop   1833   1   3   %oparray_pop   --nostringval--   %errorexec_pop   .runexec2   --nostringval--   --nostringval--   --nostringval--   2   %stopped_push"
    /// The dictionary stack gs prints with an error: systemdict holds 768 entries plus one per -dFirstPage/-dLastPage given.
    static func dictionaryStack(_ pageOptions: Int) -> String {
        "Dictionary stack:\n   --dict:\(768 + pageOptions)/1123(ro)(G)--   --dict:0/20(G)--   --dict:75/200(L)--\nCurrent allocation mode is local\n"
    }

    /// The URW fonts gs 10 substitutes for the standard 14, by their file names in its Resource/Font directory.
    static let substitutes: [String: String] = [
        "Helvetica": "NimbusSans-Regular", "Helvetica-Bold": "NimbusSans-Bold", "Helvetica-Oblique": "NimbusSans-Italic",
        "Helvetica-BoldOblique": "NimbusSans-BoldItalic", "Times-Roman": "NimbusRoman-Regular", "Times-Bold": "NimbusRoman-Bold",
        "Times-Italic": "NimbusRoman-Italic", "Times-BoldItalic": "NimbusRoman-BoldItalic", "Courier": "NimbusMonoPS-Regular",
        "Courier-Bold": "NimbusMonoPS-Bold", "Courier-Oblique": "NimbusMonoPS-Italic", "Courier-BoldOblique": "NimbusMonoPS-BoldItalic",
        "Symbol": "StandardSymbolsPS", "ZapfDingbats": "D050000L",
    ]

    /// Runs pdfwrite on `input` (the bytes of the file at `inputPath`).
    public static func pdfwrite(input: [UInt8], inputPath: String, outputPath: String, firstPage: Int?, lastPage: Int?) -> ConversionResult {
        if let refusal = ConversionResult.refusalIfTooLarge(input) { return refusal }
        if input.isEmpty { return blank(outputPath, stdout: banner) }
        if PostScriptReader.isPostScript(input) { return postScript(input, outputPath: outputPath, firstPage: firstPage, lastPage: lastPage) }
        guard let document = try? PDFInspection(input, readingContents: true) else {
            return PostScriptInterpreter.run(input, outputPath: outputPath, pageOptions: (firstPage == nil ? 0 : 1) + (lastPage == nil ? 0 : 1))
        }
        return pdf(document, outputPath: outputPath, firstPage: firstPage, lastPage: lastPage)
    }

    /// As above; `input` nil means the file does not exist.
    public static func pdfwrite(input: [UInt8]?, inputPath: String, outputPath: String, firstPage: Int?, lastPage: Int?) -> ConversionResult {
        guard let input else {
            let stdout =
                banner + "Error: /undefinedfilename in (\(inputPath))\nOperand stack:\n\nExecution stack:\n" + executionStack
                + "   --nostringval--   --nostringval--   --nostringval--   false   1   %stopped_push\n"
                + dictionaryStack((firstPage == nil ? 0 : 1) + (lastPage == nil ? 0 : 1))
                + "Last OS error: No such file or directory\n"
            var result = blank(outputPath, stdout: stdout)
            result.printed.stderr = unrecoverable
            result.printed.exitStatus = 1
            return result
        }
        return pdfwrite(input: input, inputPath: inputPath, outputPath: outputPath, firstPage: firstPage, lastPage: lastPage)
    }

    /// The one blank A4 page pdfwrite leaves when it processed none.
    static func blank(_ outputPath: String, stdout: String, stderr: String = "", title: String? = nil) -> ConversionResult {
        let pdf = PDFWriter.document(title: title, producer: producer, creator: nil, sheets: [Sheet(size: .a4, cells: [])])
        return ConversionResult(output: pdf, outputPath: outputPath, pages: 1, printed: ToolOutput(stdout: stdout, stderr: stderr))
    }

    private static func pdf(_ document: PDFInspection, outputPath: String, firstPage: Int?, lastPage: Int?) -> ConversionResult {
        var stdout = banner
        var problems: [String] = []
        let diagnostics = document.diagnostics
        if !diagnostics.startxrefFound {
            problems.append("no startxref token found")
        } else if !diagnostics.startxrefValid {
            // Past the end gs says so; inside the file it reads whatever object is there (captured: an offset into an
            // object's body gives "object lacks an endobj").
            let inside = diagnostics.startxrefOffset.map { $0 >= 0 && $0 < document.byteCount } ?? false
            problems.append(inside ? "object lacks an endobj" : "startxref offset invalid")
        }
        if diagnostics.reconstructed, !document.catalogFound { problems.append("couldn't read hybrid file's XrefStm") }
        let missingPages = document.leaves.contains(where: { $0.dictionary == nil })
        if missingPages { problems.append("invalid object number") }
        if missingPages, diagnostics.reconstructed { problems.append("couldn't repair PDF file") }
        if diagnostics.reconstructed { problems.append("PDF file was repaired") }
        // gs counts the pages the tree really has; a /Count that says otherwise is reported, not believed.
        let count = document.leaves.count
        if let declared = document.declaredCount, declared != count, document.pageTreeFound {
            problems.append("page tree root node /Count did not match the actual number of pages in the tree.")
        }
        var stderr = summary(problems, producer: document.producer)
        guard count <= DocumentLimits.maximumPages else { return .tooManyPages(count) }
        guard document.pageTreeFound else {
            stdout += "   **** Error: Couldn't initialise file.\n               Output may be incorrect.\n"
            stdout += firstPage == nil ? noPages : "\n\(firstPageTooLarge): 0\n" + noPages
            return blank(outputPath, stdout: stdout, stderr: stderr, title: document.title)
        }
        // Captured: this warning goes to stderr, unlike the errors above it.
        if count == 0 { stderr = "\n   **** Warning: PDF document has no pages.\n" + stderr }
        // Pages below 1 are reported one by one, as gs does for FirstPage=0; far below is not a range gs walks either.
        let first = max(firstPage ?? 1, -DocumentLimits.maximumPages)
        let last = min(lastPage ?? count, count)
        if first > count {
            stdout += firstPage == nil ? noPages : "\n\(firstPageTooLarge): \(count)\n" + noPages
            return blank(outputPath, stdout: stdout, stderr: stderr, title: document.title)
        }
        guard first <= last else {
            return blank(outputPath, stdout: stdout + noPages, stderr: stderr, title: document.title)
        }
        stdout += "Processing pages \(first) through \(last).\n"
        var sheets: [Sheet] = []
        var loadedFonts = Set<String>()
        for number in first...last {
            guard number >= 1, let leaf = Optional(document.leaves[number - 1]), leaf.dictionary != nil else {
                stdout += "   **** Error: Couldn't get page info.\n               Output may be incorrect.\n   **** Error: page not found.\n"
                continue
            }
            stdout += "Page \(number)\n"
            let content = document.pageContents?[number - 1] ?? []
            // Fonts load on first use: on our pages when they show text, on other PDFs when the page names them.
            let fonts = document.isOurs && PDFInspection.textLines(content).isEmpty ? [] : leaf.fonts
            for font in fonts where !loadedFonts.contains(font) {
                loadedFonts.insert(font)
                stdout += "Loading font \(font) (or substitute) from /usr/share/ghostscript/10.00.0/Resource/Font/\(substitutes[font] ?? font)\n"
            }
            sheets.append(Sheet(size: leaf.size, cells: [Sheet.Cell(source: leaf.size, content: content)]))
        }
        guard !sheets.isEmpty else { return blank(outputPath, stdout: stdout, stderr: stderr, title: document.title) }
        // pdfwrite keeps the document's Title and Creator and names itself the Producer.
        let pdf = PDFWriter.document(title: document.title, producer: producer, creator: document.creator, sheets: sheets)
        return ConversionResult(output: pdf, outputPath: outputPath, pages: sheets.count, printed: ToolOutput(stdout: stdout, stderr: stderr))
    }

    /// The repair summary gs prints on stderr after processing a damaged file.
    static func summary(_ problems: [String], producer: String?) -> String {
        guard !problems.isEmpty else { return "" }
        var out = "\nThe following errors were encountered at least once while processing this file:\n"
        for problem in problems { out += "\t\(problem)\n" }
        out += "\n   **** This file had errors that were repaired or ignored.\n"
        if let producer, !producer.isEmpty { out += "   **** The file was produced by: \n   **** >>>> \(producer) <<<<\n" }
        out +=
            "   **** Please notify the author of the software that produced this\n   **** file that it does not conform to Adobe's published PDF\n   **** specification.\n\n"
        return out
    }

    /// PostScript in: gs interprets it; pages in the range are kept (blank pages here: the emulation draws only
    /// what it wrote itself). The font line is the one captured converting a Helvetica page.
    private static func postScript(_ input: [UInt8], outputPath: String, firstPage: Int?, lastPage: Int?) -> ConversionResult {
        let count = min(PostScriptReader.pageCount(input) ?? 0, DocumentLimits.maximumPages)
        let first = max(1, firstPage ?? 1)
        let last = min(lastPage ?? count, count)
        guard first <= last else { return blank(outputPath, stdout: banner) }
        let sheets = (first...last).map { _ in Sheet(size: .a4, cells: []) }
        let pdf = PDFWriter.document(title: nil, producer: producer, creator: nil, sheets: sheets)
        return ConversionResult(output: pdf, outputPath: outputPath, pages: sheets.count, printed: ToolOutput(stdout: banner + postScriptFontLine))
    }
}

/// What Ghostscript's PostScript interpreter does with a file that is neither PDF nor DSC PostScript: it reads
/// tokens, pushing literals (numbers, strings, /names, procedures) until an executable name it does not know
/// (`/undefined`), or text it cannot scan (`/syntaxerror`). Most garbage fails on its first word.
enum PostScriptInterpreter {
    static func run(_ input: [UInt8], outputPath: String, pageOptions: Int) -> ConversionResult {
        var position = 0
        var operands: [String] = []
        func isWhitespace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 || byte == 0x0C || byte == 0x00 }
        func isDelimiter(_ byte: UInt8) -> Bool { PDFScanner.isDelimiter(byte) || byte == 0x04 }
        // gs echoes raw bytes; as text they read the way a UTF-8 terminal shows them.
        func latin1(_ bytes: ArraySlice<UInt8>) -> String { String(decoding: bytes, as: UTF8.self) }
        func failure(_ stdout: String) -> ConversionResult {
            var result = Ghostscript.blank(outputPath, stdout: Ghostscript.banner + stdout, stderr: Ghostscript.unrecoverable)
            result.printed.exitStatus = 1
            return result
        }
        func operandLine() -> String { operands.isEmpty ? "\n" : "   " + operands.suffix(20).joined(separator: "   ") + "\n" }
        func syntaxError() -> ConversionResult {
            failure(
                "Error: /syntaxerror in /----nostringval----\nOperand stack:\n" + operandLine() + "Execution stack:\n"
                    + Ghostscript.executionStack + Ghostscript.runStack + "\n" + Ghostscript.dictionaryStack(pageOptions))
        }
        var tokens = 0
        while position < input.count, tokens < 100_000 {
            tokens += 1
            let byte = input[position]
            if isWhitespace(byte) {
                position += 1
                continue
            }
            if byte == 0x04 { break }  // ^D: end of job
            switch byte {
            case 0x25:  // comment
                while position < input.count, input[position] != 0x0A, input[position] != 0x0D { position += 1 }
            case 0x28:  // (string)
                var scanner = PDFScanner(input, at: position)
                guard case .string(let bytes)? = try? scanner.nextToken() else { return syntaxError() }
                operands.append("(" + latin1(bytes[...].prefix(60)) + ")")
                position = scanner.position
            case 0x3C where position + 1 < input.count && input[position + 1] == 0x3C:
                operands.append("-mark-")
                position += 2
            case 0x3C:  // <hex>
                var scanner = PDFScanner(input, at: position)
                guard case .string(let bytes)? = try? scanner.nextToken() else { return syntaxError() }
                operands.append("(" + latin1(bytes[...].prefix(60)) + ")")
                position = scanner.position
            case 0x7B:  // {procedure}
                var depth = 0
                var scanner = PDFScanner(input, at: position)
                repeat {
                    guard let token = try? scanner.nextToken() else { return syntaxError() }
                    if token == .braceOpen { depth += 1 }
                    if token == .braceClose { depth -= 1 }
                } while depth > 0
                operands.append("--nostringval--")
                position = scanner.position
            case 0x5B:
                operands.append("-mark-")
                position += 1
            case 0x5D:
                if let mark = operands.lastIndex(of: "-mark-") { operands.removeSubrange(mark...) }
                operands.append("--nostringval--")
                position += 1
            case 0x2F:  // /literal name
                position += 1
                if position < input.count, input[position] == 0x2F { position += 1 }
                let start = position
                while position < input.count, !isWhitespace(input[position]), !isDelimiter(input[position]) { position += 1 }
                operands.append(latin1(input[start..<min(position, start + 60)]))
            case 0x29, 0x3E, 0x7D:
                return syntaxError()
            default:
                let start = position
                while position < input.count, !isWhitespace(input[position]), !isDelimiter(input[position]) { position += 1 }
                let word = input[start..<position]
                if case .integer? = PDFScanner.number(word) {
                    operands.append(String(decoding: word, as: UTF8.self))
                    continue
                }
                if case .real(let value)? = PDFScanner.number(word) {
                    operands.append(formatNumber(value))
                    continue
                }
                // The scanner consumes the white-space that ended the token (CR LF as one), not a delimiter; a token
                // ending the file leaves no position to report.
                var filePosition = position
                if position < input.count, isWhitespace(input[position]) {
                    filePosition += input[position] == 0x0D && position + 1 < input.count && input[position + 1] == 0x0A ? 2 : 1
                }
                let atEnd = position >= input.count
                return failure(
                    "Error: /undefined in \(latin1(word.prefix(256)))\nOperand stack:\n" + operandLine() + "Execution stack:\n"
                        + Ghostscript.executionStack + Ghostscript.runStack + "   --nostringval--\n"
                        + Ghostscript.dictionaryStack(pageOptions)
                        + (atEnd ? "" : "Current file position is \(filePosition)\n"))
            }
        }
        // The file ran out with nothing to execute (only numbers, strings, procedures): gs ends quietly.
        return Ghostscript.blank(outputPath, stdout: Ghostscript.banner)
    }
}
