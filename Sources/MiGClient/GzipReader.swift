import CZlib
import NIOCore

/// How the document data after the IPP message is encoded (`compression` operation attribute).
public enum DocumentCompression: String, Sendable, Equatable {
    /// The document goes as it is, so its size is known and the body may be sent with `Content-Length`.
    case none
    /// RFC 1952 gzip, compressed while streaming; the HTTP body is then chunked (its size is not known).
    case gzip
}

/// Wraps a document reader and gzips its bytes as they are read, so compression costs zlib's window and one
/// chunk, never the whole document.
final class GzipReader: DocumentReader {
    private let base: DocumentReader
    private let stream: UnsafeMutablePointer<z_stream>
    private var finished = false

    init(base: DocumentReader) throws(MiGError) {
        self.base = base
        stream = .allocate(capacity: 1)
        stream.initialize(to: z_stream())
        // windowBits 15 + 16 asks zlib for a gzip header and trailer instead of a zlib one.
        let status = deflateInit2_(
            stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY,
            ZLIB_VERSION, Int32(MemoryLayout<z_stream>.size))
        guard status == Z_OK else {
            stream.deallocate()
            throw .invalidConfiguration("zlib could not start gzip compression (status \(status))")
        }
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
    }

    func next(maximum: Int, allocator: ByteBufferAllocator) throws(MiGError) -> ByteBuffer? {
        guard !finished else { return nil }
        var output = allocator.buffer(capacity: maximum)
        // zlib may keep a whole input chunk in its window without output: read on until something comes out.
        while output.readableBytes == 0 {
            guard let input = try base.next(maximum: maximum, allocator: allocator) else {
                try deflate(nil, flush: Z_FINISH, into: &output)
                finished = true
                return output.readableBytes > 0 ? output : nil
            }
            try deflate(input, flush: Z_NO_FLUSH, into: &output)
        }
        return output
    }

    func close() { base.close() }

    /// Feeds `input` to zlib and appends everything it produces (for `Z_FINISH`, up to the gzip trailer).
    private func deflate(_ input: ByteBuffer?, flush: Int32, into output: inout ByteBuffer) throws(MiGError) {
        let status: Int32
        if let input {
            status = input.withUnsafeReadableBytes { deflate($0, flush: flush, into: &output) }
        } else {
            status = deflate(UnsafeRawBufferPointer(start: nil, count: 0), flush: flush, into: &output)
        }
        let done = flush == Z_FINISH ? status == Z_STREAM_END : (status == Z_OK || status == Z_BUF_ERROR)
        guard done else { throw .documentUnreadable("gzip compression failed (zlib status \(status))") }
    }

    /// One zlib pass over `bytes`, repeated while the output fills up; returns zlib's last status.
    private func deflate(_ bytes: UnsafeRawBufferPointer, flush: Int32, into output: inout ByteBuffer) -> Int32 {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: bytes.baseAddress?.assumingMemoryBound(to: Bytef.self))
        stream.pointee.avail_in = uInt(bytes.count)
        var status = Z_OK
        repeat {
            output.writeWithUnsafeMutableBytes(minimumWritableBytes: 65_536) { out in
                stream.pointee.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
                stream.pointee.avail_out = uInt(out.count)
                status = CZlib.deflate(stream, flush)
                return out.count - Int(stream.pointee.avail_out)
            }
        } while status == Z_OK && (stream.pointee.avail_out == 0 || flush == Z_FINISH)
        return status
    }
}
