import Crypto

/// The three converters the app carries and uploads to the host on first use, with the digests it compares the host's
/// copies against (`md5 socPrint/<file>` must *start with* the digest, upper-case, for the copy to count as cached).
///
/// The real app hard-codes the real jars' digests (``originalDigests``). A world that cannot ship those jars uploads
/// stand-ins of the same sizes instead, so the app takes its payloads and expected digests from a manifest.
public struct ConverterManifest: Sendable {
    /// One converter: where it goes on the host, what to upload, and the digest of what was uploaded.
    public struct Converter: Sendable {
        /// The file name under `socPrint/`, e.g. `docs-to-pdf-converter-1.7.jar`.
        public let fileName: String
        /// The bytes uploaded when the host's copy is missing or its digest differs: the real jar or a stand-in.
        public let payload: UploadSource
        /// Upper-case hex MD5 of the payload.
        public let md5: String

        /// A converter whose digest is already known; `md5` is upper-cased, as the host's `md5` prints it.
        public init(fileName: String, payload: UploadSource, md5: String) {
            self.fileName = fileName
            self.payload = payload
            self.md5 = md5.uppercased()
        }

        /// A converter whose digest is computed from its payload.
        public init(fileName: String, payload: UploadSource) throws {
            self.init(fileName: fileName, payload: payload, md5: try ConverterManifest.md5(of: payload))
        }

        /// Where the app puts it.
        public var remotePath: String { PrintPaths.directory + fileName }
    }

    /// docs-to-pdf-converter 1.7: DOC, DOCX, PPT, PPTX and ODT to PDF (row "Uploading DOC converter").
    public let documentConverter: Converter
    /// nup_pdf: 2, 4 and 8 pages per sheet.
    public let nUp: Converter
    /// Multivalent: 6 pages per sheet (`tool.pdf.Impose`).
    public let multivalent: Converter

    /// The three converters a print may need: the document converter for non-PDF files, nup_pdf for 2, 4 and 8 pages
    /// per sheet, and Multivalent for 6.
    public init(documentConverter: Converter, nUp: Converter, multivalent: Converter) {
        self.documentConverter = documentConverter
        self.nUp = nUp
        self.multivalent = multivalent
    }

    /// The digests the real app expects of the real jars (file name → digest), and their sizes in bytes.
    public static let originalDigests: [(fileName: String, md5: String, size: Int)] = [
        ("docs-to-pdf-converter-1.7.jar", "1FC140AD8074E333F9082300F4EA38DC", 46_617_390),
        ("nup_pdf.jar", "C1F8FF3F9DE7B2D2A2B41FBC0085888B", 1_174_581),
        ("Multivalent.jar", "813BB651A1CC6EA230F28AAC47F78051", 2_716_363),
    ]

    /// Upper-case hex MD5 of a payload, read a megabyte at a time.
    public static func md5(of source: UploadSource) throws -> String {
        var hash = Insecure.MD5()
        var offset: Int64 = 0
        while offset < source.size {
            let chunk = try source.read(offset, Int(min(1 << 20, source.size - offset)))
            guard !chunk.isEmpty else { break }
            hash.update(data: chunk)
            offset += Int64(chunk.count)
        }
        return hash.finalize().map { byte in
            let digits = Array("0123456789ABCDEF")
            return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
        }.joined()
    }
}
