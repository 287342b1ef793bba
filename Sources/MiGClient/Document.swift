import Foundation
import NIOCore
import PrintDocuments

/// What to print. Files and generated documents are streamed in chunks and never held whole in memory,
/// so a 1 GB document costs one chunk of memory; every attempt of a retried upload reads it again from the start.
public struct Document: Sendable {
    enum Source: Sendable {
        case bytes([UInt8])
        case file(String)
        case generated(PaddedPDF)
    }

    let source: Source
    /// The name shown to the user as the job name when the print options give none.
    public let name: String
    /// The MIME type (`document-format`); nil lets the options decide, else `application/octet-stream`.
    public let format: String?

    /// A document already in memory.
    public static func bytes(_ bytes: [UInt8], name: String = "document", format: String? = nil) -> Document {
        Document(source: .bytes(bytes), name: name, format: format)
    }

    /// A file, streamed from disk. The format defaults from the extension (.pdf, .ps, .jpg, .pwg).
    public static func file(_ path: String, format: String? = nil) -> Document {
        let name = path.split(separator: "/").last.map(String.init) ?? path
        return Document(source: .file(path), name: name, format: format ?? Self.format(ofFileNamed: name))
    }

    /// A real PDF of exactly `count` bytes, produced while sending (tests and benchmarks of large uploads): one page
    /// per 100,000 bytes unless `pages` says, padded with comment lines, so a printer counts its pages.
    /// - throws: `.documentUnreadable` when `count` is below the smallest PDF of that many pages
    ///   (`PaddedPDF.minimumBytes(pages:)`).
    public static func generated(
        byteCount count: Int64, pages: Int? = nil, name: String = "generated.pdf",
        format: String = "application/pdf"
    ) throws(MiGError) -> Document {
        do {
            return Document(source: .generated(try PaddedPDF(byteCount: count, pages: pages)), name: name, format: format)
        } catch {
            throw .documentUnreadable(error.message)
        }
    }

    /// The size in bytes. - throws: `.documentUnreadable` when the file cannot be examined.
    public func size() throws(MiGError) -> Int64 {
        switch source {
        case .bytes(let bytes): return Int64(bytes.count)
        case .generated(let pdf): return pdf.byteCount
        case .file(let path):
            do {
                let attributes = try FileManager.default.attributesOfItem(atPath: path)
                guard attributes[.type] as? FileAttributeType == .typeRegular else {
                    throw MiGError.documentUnreadable("\(path) is not a regular file")
                }
                return (attributes[.size] as? NSNumber)?.int64Value ?? 0
            } catch let error as MiGError {
                throw error
            } catch {
                throw .documentUnreadable("\(path): \(Self.reason(error))")
            }
        }
    }

    /// Opens a reader positioned at the first byte.
    func open() throws(MiGError) -> DocumentReader {
        switch source {
        case .bytes(let bytes): return BytesReader(bytes)
        case .generated(let pdf): return GeneratedReader(pdf)
        case .file(let path):
            guard let handle = FileHandle(forReadingAtPath: path) else {
                throw .documentUnreadable("\(path) cannot be opened for reading")
            }
            return FileReader(handle: handle, path: path)
        }
    }

    static func format(ofFileNamed name: String) -> String? {
        switch name.split(separator: ".").last?.lowercased() {
        case "pdf": "application/pdf"
        case "ps": "application/postscript"
        case "jpg", "jpeg": "image/jpeg"
        case "pwg": "image/pwg-raster"
        case "urf": "image/urf"
        default: nil
        }
    }

    fileprivate static func reason(_ error: any Error) -> String {
        (error as NSError).localizedDescription
    }
}

/// Reads a document in chunks on the event loop (synchronous file reads: local and bounded, and they keep the
/// simulation deterministic where a thread pool would not).
protocol DocumentReader: AnyObject {
    /// The next chunk of at most `maximum` bytes, or nil at the end.
    func next(maximum: Int, allocator: ByteBufferAllocator) throws(MiGError) -> ByteBuffer?
    func close()
}

private final class BytesReader: DocumentReader {
    let bytes: [UInt8]
    var offset = 0
    init(_ bytes: [UInt8]) { self.bytes = bytes }

    func next(maximum: Int, allocator: ByteBufferAllocator) -> ByteBuffer? {
        guard offset < bytes.count else { return nil }
        let end = min(bytes.count, offset + maximum)
        defer { offset = end }
        return allocator.buffer(bytes: bytes[offset..<end])
    }

    func close() {}
}

private final class GeneratedReader: DocumentReader {
    var pieces: PaddedPDF.Pieces
    var pending: ArraySlice<UInt8> = []
    var remaining: Int64
    init(_ pdf: PaddedPDF) {
        pieces = pdf.makePieces()
        remaining = pdf.byteCount
    }

    /// Fills each chunk to `maximum` from the document's pieces, as a file would be read.
    func next(maximum: Int, allocator: ByteBufferAllocator) -> ByteBuffer? {
        guard remaining > 0 else { return nil }
        var buffer = allocator.buffer(capacity: Int(min(Int64(maximum), remaining)))
        while buffer.readableBytes < maximum {
            if pending.isEmpty {
                guard let piece = pieces.next() else { break }
                pending = piece
            }
            let take = pending.prefix(maximum - buffer.readableBytes)
            buffer.writeBytes(take)
            pending = pending.dropFirst(take.count)
        }
        remaining -= Int64(buffer.readableBytes)
        return buffer
    }

    func close() {}
}

private final class FileReader: DocumentReader {
    let handle: FileHandle
    let path: String
    init(handle: FileHandle, path: String) {
        self.handle = handle
        self.path = path
    }

    func next(maximum: Int, allocator: ByteBufferAllocator) throws(MiGError) -> ByteBuffer? {
        do {
            guard let data = try handle.read(upToCount: maximum), !data.isEmpty else { return nil }
            return allocator.buffer(bytes: data)
        } catch {
            throw .documentUnreadable("\(path): \(Document.reason(error))")
        }
    }

    func close() { try? handle.close() }
}
