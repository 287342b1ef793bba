/// What the print screen hands to the print flow.
public struct PrintRequest: Sendable {
    /// The file's name as the phone knows it, e.g. `Term project overview.pptx`, and its bytes. Its extension goes on
    /// the host's command lines unquoted (`socPrint/source.pptx`), as in the app, whose "Open In" takes only the six
    /// document types; ``SOCPrintApp`` refuses anything else before it gets here.
    public var fileName: String
    /// The file's bytes, read a chunk at a time as they are uploaded.
    public var document: UploadSource
    /// The print queue `lpr -P` sends to, e.g. `psts` or its single-sided `psts-sx`; it goes on the command line
    /// unquoted.
    public var printer: String
    /// How many pages go on each sheet; more than one adds the formatter upload and the formatting row.
    public var pagesPerSheet: PagesPerSheet
    /// All pages, or the custom range the PDF is trimmed to before formatting.
    public var range: PageRange

    /// A request to print the whole document one page per sheet, unless `pagesPerSheet` or `range` says otherwise.
    public init(fileName: String, document: UploadSource, printer: String, pagesPerSheet: PagesPerSheet = .one, range: PageRange = .all) {
        self.fileName = fileName
        self.document = document
        self.printer = printer
        self.pagesPerSheet = pagesPerSheet
        self.range = range
    }
}

/// The print screen's "Pages per sheet" buttons.
public enum PagesPerSheet: Int, Sendable, CaseIterable {
    /// One page per sheet: no formatter is uploaded and nothing is formatted.
    case one = 1
    /// Two pages per sheet, through nup_pdf.
    case two = 2
    /// Four pages per sheet, through nup_pdf.
    case four = 4
    /// Six pages per sheet, through Multivalent (`tool.pdf.Impose`), the only size nup_pdf is not used for.
    case six = 6
    /// Eight pages per sheet, through nup_pdf.
    case eight = 8
}

/// The print screen's "Page range": All, or Custom "From S to E".
public enum PageRange: Sendable, Equatable {
    /// Every page: the trim row is skipped.
    case all
    /// Pages `from` through `to`, counted from 1 and both included; Ghostscript trims the PDF to them.
    case custom(from: Int, to: Int)

    /// The print screen's check of the two fields: digits only, neither 0, start ≤ end. There is no upper bound —
    /// a range beyond the last page fails on the host, at "Trim PDF…".
    public static func custom(from start: String, to end: String) -> PageRange? {
        guard let first = Self.pageNumber(start), let last = Self.pageNumber(end), first <= last else { return nil }
        return .custom(from: first, to: last)
    }

    private static func pageNumber(_ text: String) -> Int? {
        guard !text.isEmpty, text.count <= 9, text.unicodeScalars.allSatisfy({ ("0"..."9").contains($0) }), let value = Int(text), value > 0 else {
            return nil
        }
        return value
    }
}

/// Whether the phone is on Wi-Fi or mobile data (the app asks Reachability); mobile data makes the 46.6 MB
/// converter upload ask first.
public enum NetworkKind: String, Sendable {
    /// Wi-Fi: the converters are uploaded without asking.
    case wifi
    /// Mobile data: the document converter's upload asks ``Alert/mobileData`` first.
    case wwan
}

/// The paths and command lines of the print flow, exactly as the app builds them (pure, so they can be checked).
public enum PrintPaths {
    /// The app's working directory, relative to the home.
    public static let directory = "socPrint/"

    /// Whether the app treats the file as a PDF: its extension must *contain* `pdf`, **case-sensitively** — the app's
    /// own rule, kept on purpose: `Report.PDF` goes through the document converter (which refuses PDF input).
    public static func isPDF(_ fileName: String) -> Bool { fileExtension(fileName).contains("pdf") }

    /// The extension after the last dot of the last path component ("" without one), case kept.
    public static func fileExtension(_ fileName: String) -> String {
        let last = fileName.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? fileName
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return "" }
        return String(last[last.index(after: dot)...])
    }

    /// The name without its extension (the PostScript file is called after it).
    public static func baseName(_ fileName: String) -> String {
        let last = fileName.split(separator: "/", omittingEmptySubsequences: false).last.map(String.init) ?? fileName
        guard let dot = last.lastIndex(of: "."), dot != last.startIndex else { return last }
        return String(last[..<dot])
    }

    /// Where the document goes: `socPrint/source.<ext>`, the original extension with its case.
    public static func uploadPath(_ fileName: String) -> String { directory + "source." + fileExtension(fileName) }

    /// The housekeeping row's commands: create `socPrint/`, then delete every file in it but the three converters
    /// (the previous print's leftovers).
    public static let housekeeping = [
        "mkdir socPrint/",
        "find socPrint/ -type f \\( \\! -name 'nup_pdf.jar' \\) \\( \\! -name 'docs-to-pdf-converter-1.7.jar' \\) \\( \\! -name 'Multivalent.jar' \\) -exec rm '{}' \\;",
    ]

    /// The command that tells whether the host's copy of a converter is current: its output must start with
    /// the manifest's digest.
    public static func md5(_ converter: ConverterManifest.Converter) -> String { "md5 " + converter.remotePath }

    /// The document converter's command line, from the uploaded document to `socPrint/source.pdf`.
    public static func convertToPDF(_ fileName: String, converter: ConverterManifest.Converter) -> String {
        "java -jar \(converter.remotePath) -i \(uploadPath(fileName)) -o socPrint/source.pdf"
    }

    /// Ghostscript's command keeping pages `first` through `last` of `input`, and the file it writes
    /// (`socPrint/source-trimmed.pdf`).
    public static func trim(from first: Int, to last: Int, input: String) -> (command: String, output: String) {
        let output = "socPrint/source-trimmed.pdf"
        return ("gs -sDEVICE=pdfwrite -dNOPAUSE -dBATCH -dSAFER -dFirstPage=\(first) -dLastPage=\(last) -sOutputFile=\(output) \(input)", output)
    }

    /// 2, 4 and 8 per sheet through nup_pdf; 6 through Multivalent, which names its output after the input (`-up`).
    public static func format(_ perSheet: PagesPerSheet, input: String, manifest: ConverterManifest) -> (command: String, output: String) {
        if perSheet == .six {
            let stem = input.hasSuffix(".pdf") ? String(input.dropLast(4)) : input
            return ("java -classpath \(manifest.multivalent.remotePath) tool.pdf.Impose -paper a4 -nup 6 \(input)", stem + "-up.pdf")
        }
        let output = "socPrint/formatted.pdf"
        return ("java -jar \(manifest.nUp.remotePath) \(input) \(output) \(perSheet.rawValue)", output)
    }

    /// `socPrint/"<name>.ps"`: the app puts the name inside double quotes unescaped. Names with a double quote,
    /// `$`, a backtick or `\` would break out of those quotes (or expand) on the host, so for them — and only them —
    /// this quotes the whole word in single quotes instead; every other name goes on the wire exactly as the app
    /// sends it.
    public static func postScriptPath(_ fileName: String) -> String {
        let name = baseName(fileName) + ".ps"
        if name.contains(where: { "\"$`\\".contains($0) }) {
            return "'" + (directory + name).replacing("'", with: "'\\''") + "'"
        }
        return directory + "\"" + name + "\""
    }

    /// `pdftops` from the PDF at `pdf` to the PostScript file named after the document
    /// (``PrintPaths/postScriptPath(_:)``).
    public static func toPostScript(_ pdf: String, fileName: String) -> String { "pdftops \(pdf) \(postScriptPath(fileName))" }

    /// `lpr -P` with the document's PostScript file; the printer name goes unquoted, as in the app.
    public static func send(printer: String, fileName: String) -> String { "lpr -P \(printer) \(postScriptPath(fileName))" }
}
