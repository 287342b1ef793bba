/// poppler's pdftops 22.12.0 as Debian 12 ships it (`pdftops IN OUT`): PDF to DSC PostScript with the same pages,
/// each at its own size; nothing on stdout. Exit codes as documented: 0 success, 1 error opening the PDF, 2 error
/// opening the PostScript file, 3 permissions, 99 other.
///
/// Messages captured from the real tool on Debian 12 (all stderr):
///
///     I/O Error: Couldn't open file 'nope.pdf': No such file or directory.        ← missing, exit 1
///     Syntax Error: Document stream is empty                                      ← empty file, exit 1
///     Syntax Warning: May not be a PDF file (continuing anyway)                   ← no %PDF header, then
///     Syntax Error: Couldn't find trailer dictionary                                 (also for a PDF cut short
///     Syntax Error: Couldn't find trailer dictionary                                  before its trailer), exit 1
///     Syntax Error: Couldn't read xref table
///     Syntax Error: Top-level pages object is wrong type (null)                   ← no page tree, exit 99
///     Command Line Error: Wrong page range given: the first page (1) can not be after the last page (0).
///     Syntax Error: Invalid page count 0                                          ← /Count 0, exit 99 (+ the line above)
///     Syntax Error: Page count (99999999) larger than number of objects (4)       ← exit 99 (+ the line above)
///     I/O Error: Couldn't open PostScript file '/nonexistent/dir/x.ps'           ← exit 2 (``cannotOpenOutput(_:)``)
///     I/O Error: Couldn't open file '/tmp/cap/three.pdf': Permission denied.      ← exit 1 (``cannotOpenInput(_:reason:)``)
///
/// A file whose cross-reference is broken but whose trailer is present is repaired silently, as poppler does.
public enum PDFToPS {
    static let pageRangeError = "Command Line Error: Wrong page range given: the first page (1) can not be after the last page (0).\n"

    /// Converts `input` (read from `inputPath`) to PostScript for `outputPath`.
    public static func convert(input: [UInt8], inputPath: String, outputPath: String) -> ConversionResult {
        if let refusal = ConversionResult.refusalIfTooLarge(input) { return refusal }
        if input.isEmpty { return failure("Syntax Error: Document stream is empty\n", status: 1) }
        let trailerErrors =
            "Syntax Error: Couldn't find trailer dictionary\nSyntax Error: Couldn't find trailer dictionary\nSyntax Error: Couldn't read xref table\n"
        guard let document = try? PDFInspection(input, readingContents: true) else {
            return failure("Syntax Warning: May not be a PDF file (continuing anyway)\n" + trailerErrors, status: 1)
        }
        guard document.diagnostics.trailerFound else { return failure(trailerErrors, status: 1) }
        guard document.catalogFound else { return failure("Syntax Error: Catalog object is wrong type (null)\n", status: 1) }
        guard document.pageTreeFound else {
            return failure("Syntax Error: Top-level pages object is wrong type (null)\n" + pageRangeError, status: 99)
        }
        guard let count = document.declaredCount else {
            return failure("Syntax Error: Page count in top-level pages object is wrong type (null)\n" + pageRangeError, status: 99)
        }
        guard count > 0 else { return failure("Syntax Error: Invalid page count 0\n" + pageRangeError, status: 99) }
        guard count <= document.objectCount else {
            return failure(
                "Syntax Error: Page count (\(count)) larger than number of objects (\(document.objectCount))\n" + pageRangeError, status: 99)
        }
        guard count <= DocumentLimits.maximumPages else { return .tooManyPages(count) }
        // poppler believes /Count; pages the tree does not deliver come out blank, at the last size seen.
        var sheets: [Sheet] = []
        var size = document.leaves.first?.size ?? .letter
        for index in 0..<count {
            if index < document.leaves.count { size = document.leaves[index].size }
            let content = index < document.leaves.count ? document.pageContents?[index] ?? [] : []
            sheets.append(Sheet(size: size, cells: [Sheet.Cell(source: size, content: content)]))
        }
        let postScript = PostScriptWriter.document(flavour: .pdftops(creator: document.creator), sheets: sheets)
        return ConversionResult(output: postScript, outputPath: outputPath, pages: count, printed: ToolOutput())
    }

    /// As above; `input` nil means the file does not exist.
    public static func convert(input: [UInt8]?, inputPath: String, outputPath: String) -> ConversionResult {
        guard let input else { return cannotOpenInput(inputPath, reason: "No such file or directory") }
        return convert(input: input, inputPath: inputPath, outputPath: outputPath)
    }

    /// The input cannot be opened (`reason` as strerror says it, e.g. "Permission denied"): exit 1.
    public static func cannotOpenInput(_ inputPath: String, reason: String) -> ConversionResult {
        failure("I/O Error: Couldn't open file '\(inputPath)': \(reason).\n", status: 1)
    }

    /// The PostScript file cannot be created: exit 2 (after a successful conversion, the host says so instead).
    public static func cannotOpenOutput(_ outputPath: String) -> ToolOutput {
        ToolOutput(stderr: "I/O Error: Couldn't open PostScript file '\(outputPath)'\n", exitStatus: 2)
    }

    static func failure(_ stderr: String, status: Int32) -> ConversionResult {
        .failure(ToolOutput(stderr: stderr, exitStatus: status))
    }
}
