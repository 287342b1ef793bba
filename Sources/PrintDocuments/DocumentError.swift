/// Why bytes are not the document they were taken for: the message says what was found and what was expected.
public struct DocumentError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// The limits every reader here holds to, so hostile files cost bounded time and memory and never trap.
public enum DocumentLimits {
    /// Largest document any reader or converter accepts (the host's upload limit is larger; a converter refuses).
    public static let maximumDocumentBytes = 64 << 20
    /// Most pages a document may have or claim; a claim beyond this is refused, not truncated.
    public static let maximumPages = 10_000
    /// Most entries in a ZIP central directory (OOXML, ODF, jars).
    public static let maximumZIPEntries = 10_000
    /// Largest metadata entry (`docProps/app.xml`, `meta.xml`, a manifest) inflated from a ZIP: a zip bomb stops here.
    public static let maximumMetadataBytes = 4 << 20
    /// Largest document body (`word/document.xml`, `content.xml`, a slide) inflated when the metadata has no page
    /// count and the pages must be counted from the body instead.
    public static let maximumBodyBytes = 32 << 20
    /// Largest PDF stream (object stream, cross-reference stream, content stream) decoded.
    public static let maximumDecodedStreamBytes = 16 << 20
    /// Deepest nesting of PDF arrays and dictionaries, and of page-tree levels, followed.
    public static let maximumNesting = 64
}
