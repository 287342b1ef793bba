/// yeokm1's docs-to-pdf-converter 1.7 (`java -jar docs-to-pdf-converter-1.7.jar -i IN -o OUT`), emulated from its
/// source (github.com/yeokm1/docs-to-pdf-converter, tag v1.7, MainClass.java and the five converters):
///
/// - The type comes from the **whole input path, lower-cased**, ending in `doc`, `docx`, `ppt`, `pptx` or `odt`
///   (`lowerCaseInPath.endsWith("doc")`…) — case-insensitive, and a path without a dot but ending in `doc` counts.
///   PDF is not a type it knows: the app's own PDF check is case-sensitive, so `X.PDF` arrives here and fails with
///   "Unable to determine type of input file." — the real app's behaviour, kept.
/// - It opens the input, then creates the output, before choosing a converter: an unknown type leaves an **empty
///   output file**; a missing input leaves none and prints "Input\Output file not specified properly.".
/// - Conversion errors go to `e.printStackTrace()` — **stderr**, exit status 0, empty output file. The app reads only
///   stdout, so it carries on with an empty PDF, as it did with the real host.
/// - Success prints nothing (without `-v`). Output pages = input pages; DOC, DOCX and ODT become pages of the
///   document's page size (A4 unless it says); PPT and PPTX become one landscape page per slide at twice the slide's
///   size in points (the converter draws each slide into an image at zoom 2 and makes the page that big: 16:9 →
///   1920 × 1080 pt).
///
/// The Java exception texts for unreadable input are those of the libraries v1.7 bundles (POI 3.9, docx4j 3.0,
/// odfdom 0.8.7); the messages are the libraries' own words as far as known, the stack frames inside the libraries
/// are plausible reconstructions, not captures.
public enum DocsToPDFConverter {
    /// The type names of its `-type` option, and the converter class each selects.
    enum Kind: String, CaseIterable {
        case doc, docx, ppt, pptx, odt

        var format: OfficeFormat {
            switch self {
            case .doc: .doc
            case .docx: .docx
            case .ppt: .ppt
            case .pptx: .pptx
            case .odt: .odt
            }
        }
    }

    static let version = "\nDocs to PDF Converter Version 1.7 (8 Dec 2013)\n\nThe MIT License (MIT)\nCopyright (c) 2013-2014 Yeo Kheng Meng\n"
    /// Printed on stdout when the input cannot be opened (or no input was given).
    public static let notSpecifiedMessage = "\n\nInput\\Output file not specified properly.\n"
    public static let unknownTypeMessage = "Unable to determine type of input file.\n"
    /// args4j's usage for the tool's options, printed on stderr (a plausible rendering of args4j 2.0.21's layout).
    public static let usage = """
         -inputPath (-i, -in, -input) <path>    : Specifies a path for the input file.
         -outputPath (-o, -out, -output) <path> : Specifies a path for the output PDF.
         -type (-t) [DOC | DOCX | PPT | PPTX |  : Specifies doc converter. Leave blank to
         ODT]                                     let program decide by input extension.
         -verbose (-v)                          : To see intermediate processing messages.
         -version (-ver)                        : To view version code.

        """

    /// Converts `input`, read from `inputPath`, as the tool does when run with `-i inputPath -o outputPath`.
    public static func convert(input: [UInt8], inputPath: String, outputPath: String) -> ConversionResult {
        convert(input: input, inputPath: inputPath, outputPath: outputPath, type: nil, verbose: false)
    }

    /// As above; `input` nil means the input file does not exist (or cannot be read).
    public static func convert(input: [UInt8]?, inputPath: String, outputPath: String) -> ConversionResult {
        guard let input else { return .failure(ToolOutput(stdout: notSpecifiedMessage)) }
        return convert(input: input, inputPath: inputPath, outputPath: outputPath)
    }

    /// The whole command line after `-jar docs-to-pdf-converter-1.7.jar`, parsed as args4j parses it (`-i`/`-in`/
    /// `-input`/`-inputPath`, `-o`…, `-t`/`-type`, `-v`, `-ver`); `readFile` returns a file's bytes or nil when it
    /// cannot be opened. Without `-o` the output is the input with its extension replaced by `.pdf`.
    public static func run(arguments: [String], readFile: (String) -> [UInt8]?) -> ConversionResult {
        var input: String?
        var output: String?
        var type: Kind?
        var verbose = false
        var version = false
        var index = 0
        func value(_ option: String) -> String? {
            index += 1
            return index < arguments.count ? arguments[index] : nil
        }
        while index < arguments.count {
            let argument = arguments[index]
            switch argument {
            case "-i", "-in", "-input", "-inputPath":
                guard let path = value(argument) else { return optionError("Option \"\(argument)\" takes an operand") }
                input = path
            case "-o", "-out", "-output", "-outputPath":
                guard let path = value(argument) else { return optionError("Option \"\(argument)\" takes an operand") }
                output = path
            case "-t", "-type":
                guard let name = value(argument) else { return optionError("Option \"\(argument)\" takes an operand") }
                guard let kind = Kind(rawValue: name.lowercased()) else {
                    return optionError("\"\(name)\" is not a valid value for \"\(argument)\"")
                }
                type = kind
            case "-v", "-verbose": verbose = true
            case "-ver", "-version": version = true
            default:
                return optionError(argument.hasPrefix("-") ? "\"\(argument)\" is not a valid option" : "No argument is allowed: \(argument)")
            }
            index += 1
        }
        if version { return .failure(ToolOutput(stdout: Self.version)) }
        guard let input else { return .failure(ToolOutput(stdout: notSpecifiedMessage, stderr: usage)) }
        guard let bytes = readFile(input) else { return .failure(ToolOutput(stdout: notSpecifiedMessage)) }
        return convert(input: bytes, inputPath: input, outputPath: output ?? pdfPath(for: input), type: type, verbose: verbose)
    }

    /// A CmdLineException: message and usage on stderr, then no converter, so main says it cannot tell the type.
    private static func optionError(_ message: String) -> ConversionResult {
        .failure(ToolOutput(stdout: unknownTypeMessage, stderr: message + "\n" + usage))
    }

    /// `changeExtensionToPDF`: everything before the last dot, plus `.pdf`.
    static func pdfPath(for input: String) -> String {
        guard let dot = input.lastIndex(of: ".") else { return input + ".pdf" }
        return String(input[..<dot]) + ".pdf"
    }

    /// The converter the tool picks for a path, by the same `endsWith` tests in the same order.
    static func kind(forPath path: String) -> Kind? {
        let lower = path.lowercased()
        return [Kind.doc, .docx, .ppt, .pptx, .odt].first { lower.hasSuffix($0.rawValue) }
    }

    static func convert(input: [UInt8], inputPath: String, outputPath: String, type: Kind?, verbose: Bool) -> ConversionResult {
        if let refusal = ConversionResult.refusalIfTooLarge(input) { return refusal }
        // The output file exists (empty) from here on, whatever happens next.
        guard let kind = type ?? kind(forPath: inputPath) else {
            return ConversionResult(output: [], outputPath: outputPath, pages: 0, printed: ToolOutput(stdout: unknownTypeMessage))
        }
        let loading = verbose ? "\nLoading stream\n\n\n" : ""
        let content: OfficeDocument.Content
        do {
            content = try OfficeDocument.read(input, format: kind.format, withText: true)
        } catch {
            return ConversionResult(
                output: [], outputPath: outputPath, pages: 0,
                printed: ToolOutput(stdout: loading, stderr: stackTrace(kind, input: input, error: error)))
        }
        let name = inputPath.lastPathComponent
        let sheets: [Sheet]
        let producer: String
        if kind.format.isPresentation {
            // POI's default slide size is 720 × 540 pt (4:3); the page is the slide drawn at zoom 2.
            let slide = content.size ?? PageSize(width: 720, height: 540)
            let page = PageSize(width: slide.width * 2, height: slide.height * 2)
            sheets = (0..<content.pages).map { index in
                let lines = content.pageTexts?[index] ?? [content.title ?? name, "Slide \(index + 1) of \(content.pages)"]
                return Sheet(size: page, cells: [Sheet.Cell(source: slide, content: Sheet.text(lines, height: slide.height), scale: 2)])
            }
            producer = "iText\u{AE} 5.4.4 \u{A9}2000-2013 1T3XT BVBA (AGPL-version)"
        } else {
            let size = content.size ?? .a4
            sheets = (0..<content.pages).map { index in
                Sheet.page(content.pageTexts?[index] ?? [content.title ?? name, "Page \(index + 1) of \(content.pages)"], size: size)
            }
            producer = kind == .doc ? "Apache FOP Version 1.1" : "iText 2.1.7 by 1T3XT"
        }
        let pdf = PDFWriter.document(title: content.title, producer: producer, sheets: sheets)
        // -v: the Converter's progress lines (System.out.println of its formats); the timings are a fixed model
        // of the real tool's (no clock here): loading 40 ms per page, converting 60 ms per page.
        var printed = ToolOutput()
        if verbose {
            let load = 40 * content.pages
            let convert = 60 * content.pages
            printed.stdout =
                loading + "Load completed in \(load)ms, now converting...\n\n\n"
                + "Conversion took \(convert)ms.\n\nTotal: \(load + convert)ms\n\n"
        }
        return ConversionResult(output: pdf, outputPath: outputPath, pages: content.pages, printed: printed)
    }

    /// What `e.printStackTrace()` prints for input the libraries cannot read.
    static func stackTrace(_ kind: Kind, input: [UInt8], error: DocumentError) -> String {
        let ours = "com.yeokhengmeng.docstopdfconverter"
        let main = "\tat \(ours).MainClass.main(MainClass.java:43)\n"
        switch kind {
        case .docx, .pptx:
            let constructor =
                kind == .docx
                ? "\tat org.apache.poi.xwpf.usermodel.XWPFDocument.<init>(XWPFDocument.java:116)\n\tat \(ours).DocxToPDFConverter.convert(DocxToPDFConverter.java:22)\n"
                : "\tat org.apache.poi.xslf.usermodel.XMLSlideShow.<init>(XMLSlideShow.java:94)\n\tat \(ours).PptxToPDFConverter.processSlides(PptxToPDFConverter.java:85)\n\tat \(ours).PptxToPDFConverter.convert(PptxToPDFConverter.java:39)\n"
            let contentTypes = "org.apache.poi.openxml4j.exceptions.InvalidFormatException: Package should contain a content type part [M1.13]"
            if ZIPDamage.isContentTypeProblem(input) {
                return "org.apache.poi.POIXMLException: \(contentTypes)\n\tat org.apache.poi.util.PackageHelper.open(PackageHelper.java:41)\n"
                    + constructor + main + "Caused by: \(contentTypes)\n"
                    + "\tat org.apache.poi.openxml4j.opc.ZipPackage.getPartsImpl(ZipPackage.java:203)\n"
                    + "\tat org.apache.poi.openxml4j.opc.OPCPackage.getParts(OPCPackage.java:673)\n"
                    + "\tat org.apache.poi.openxml4j.opc.OPCPackage.open(OPCPackage.java:274)\n"
                    + "\tat org.apache.poi.util.PackageHelper.open(PackageHelper.java:39)\n\t... \(constructor.split(separator: "\n").count + 1) more\n"
            }
            return "org.apache.poi.POIXMLException: java.util.zip.ZipException: \(error.message)\n"
                + "\tat org.apache.poi.util.PackageHelper.open(PackageHelper.java:41)\n" + constructor + main
        case .doc, .ppt:
            let frames =
                kind == .doc
                ? "\tat org.apache.poi.hwpf.HWPFDocumentCore.verifyAndBuildPOIFS(HWPFDocumentCore.java:94)\n\tat org.apache.poi.hwpf.HWPFDocument.<init>(HWPFDocument.java:174)\n\tat org.docx4j.convert.in.Doc.convert(Doc.java:64)\n\tat \(ours).DocToPDFConverter.getMLPackage(DocToPDFConverter.java:49)\n\tat \(ours).DocToPDFConverter.convert(DocToPDFConverter.java:29)\n"
                : "\tat org.apache.poi.hslf.HSLFSlideShow.<init>(HSLFSlideShow.java:121)\n\tat org.apache.poi.hslf.usermodel.SlideShow.<init>(SlideShow.java:153)\n\tat \(ours).PptToPDFConverter.processSlides(PptToPDFConverter.java:24)\n\tat \(ours).PptxToPDFConverter.convert(PptxToPDFConverter.java:39)\n"
            let header =
                "\tat org.apache.poi.poifs.storage.HeaderBlock.<init>(HeaderBlock.java:140)\n\tat org.apache.poi.poifs.filesystem.POIFSFileSystem.<init>(POIFSFileSystem.java:171)\n"
            if input.starts(with: [0x50, 0x4B, 0x03, 0x04]) {
                return "org.apache.poi.poifs.filesystem.OfficeXmlFileException: The supplied data appears to be in the Office 2007+ XML. "
                    + "You are calling the part of POI that deals with OLE2 Office Documents. You need to call a different part of POI "
                    + "to process this data (eg XSSF instead of HSSF)\n" + header + frames + main
            }
            if input.count < 512 {
                return "java.io.IOException: Unable to read entire header; \(input.count) bytes read; expected 512 bytes\n"
                    + "\tat org.apache.poi.poifs.storage.HeaderBlock.readFirst512(HeaderBlock.java:226)\n" + header + frames + main
            }
            if !input.starts(with: CompoundFile.signature) {
                var signature: UInt64 = 0
                for (index, byte) in input.prefix(8).enumerated() { signature |= UInt64(byte) << (8 * UInt64(index)) }
                let hex = String(signature, radix: 16, uppercase: true)
                return
                    "java.io.IOException: Invalid header signature; read 0x\(String(repeating: "0", count: 16 - hex.count) + hex), expected 0xE11AB1A1E011CFD0\n"
                    + header + frames + main
            }
            let stream = kind == .doc ? "WordDocument" : "PowerPoint Document"
            if error.message.contains("no \(stream) stream") {
                return "java.io.FileNotFoundException: no such entry: \"\(stream)\"\n"
                    + "\tat org.apache.poi.poifs.filesystem.DirectoryNode.getEntry(DirectoryNode.java:375)\n" + frames + main
            }
            return "java.io.IOException: Unable to read entire block; the compound file is damaged (\(error.message))\n" + header + frames + main
        case .odt:
            return "java.lang.IllegalArgumentException: Given mediaType 'null' is either not yet supported or not an ODF mediatype!\n"
                + "\tat org.odftoolkit.odfdom.doc.OdfDocument$OdfMediaType.getOdfMediaType(OdfDocument.java:218)\n"
                + "\tat org.odftoolkit.odfdom.doc.OdfDocument.loadDocument(OdfDocument.java:345)\n"
                + "\tat org.odftoolkit.odfdom.doc.OdfTextDocument.loadDocument(OdfTextDocument.java:152)\n"
                + "\tat \(ours).OdtToPDF.convert(OdtToPDF.java:23)\n" + main
        }
    }
}

/// Which of POI's failures an unreadable OOXML file meets first.
enum ZIPDamage {
    /// Not a ZIP at all, or a ZIP without `[Content_Types].xml`: POI's "Package should contain a content type part".
    static func isContentTypeProblem(_ bytes: [UInt8]) -> Bool {
        guard let zip = try? ZIPReader(bytes) else { return true }
        return !zip.entryNames.contains("[Content_Types].xml")
    }
}
