import Foundation
import PrintDocuments
import TestSupport

/// Documents the tests print, and helpers to run the real tools.
enum Sample {
    /// A PDF of `pages` pages, page i saying "Page i of N" (so a page's identity can be followed through tools).
    static func pdf(_ pages: Int, title: String = "Handout", landscape: Bool = false) -> [UInt8] {
        PDFWriter.document(title: title, pages: (1...pages).map { PDFPage(lines: [title, "Page \($0) of \(pages)"]) }, landscape: landscape)
    }

    /// The file an office format arrives as on the host, and the pages it converts to.
    static func converted(_ format: OfficeFormat, pages: Int) -> ConversionResult {
        DocsToPDFConverter.convert(
            input: OfficeDocument.generate(format, pages: pages, title: "Term project"),
            inputPath: "socPrint/source.\(format.rawValue)", outputPath: "socPrint/source.pdf")
    }

    static func text(_ bytes: [UInt8]?) -> String { String(decoding: bytes ?? [], as: UTF8.self) }
}

/// Real command-line tools (qpdf, poppler-utils), for checking that what this module writes is what real readers
/// accept. Test-only: the module itself does no I/O.
enum RealTool {
    /// The tool's path on PATH, or nil.
    static func find(_ name: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for directory in path.split(separator: ":") + ["/usr/bin", "/usr/local/bin"] {
            let candidate = "\(directory)/\(name)"
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        }
        return nil
    }

    /// Runs a tool to completion under the shared watchdog (its output goes through files, so neither stream can
    /// block the other).
    static func run(_ executable: String, _ arguments: [String]) throws -> ExternalProcess.Result {
        try ExternalProcess.run(executable, arguments)
    }

    /// A fresh directory for one test's files.
    static func scratchDirectory() throws -> URL {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("print-documents-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return directory
    }
}
