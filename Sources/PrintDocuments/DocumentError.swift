/// Why bytes are not the document they were taken for; the message says what was found and what was expected.
public struct DocumentError: Error, Equatable, Sendable, CustomStringConvertible {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Limits every reader here holds to, so hostile files cost bounded time and memory.
public enum DocumentLimits {
    /// Largest document a converter reads.
    public static let maximumDocumentBytes = 64 << 20
    /// Most pages a document may claim.
    public static let maximumPages = 10_000
    /// Most entries in a ZIP directory.
    public static let maximumZIPEntries = 10_000
    /// Largest metadata entry inflated from a ZIP (a zip bomb stops here).
    public static let maximumMetadataBytes = 4 << 20
}
