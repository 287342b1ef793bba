import CZlib
import NIOCore

/// Decompresses a gzip document (IPP `compression=gzip`) on its way into the spool, a chunk at a time.
final class GzipInflatingWriter: DocumentWriter {
    private let inner: any DocumentWriter
    private var stream = z_stream()
    private var ended = false
    private var output = ByteBuffer()

    init(inner: any DocumentWriter) throws(SpoolError) {
        self.inner = inner
        guard czlib_inflate_init_gzip(&stream) == Z_OK else { throw .compression("zlib could not start") }
        output.reserveCapacity(64 * 1024)
    }

    deinit { inflateEnd(&stream) }

    func write(_ chunks: [ByteBuffer]) throws(SpoolError) {
        for bytes in chunks { try inflateChunk(bytes) }
    }

    private func inflateChunk(_ bytes: ByteBuffer) throws(SpoolError) {
        guard bytes.readableBytes > 0 else { return }
        guard !ended else { throw .compression("data follows the end of the gzip stream") }
        var input = bytes
        try input.withUnsafeMutableReadableBytes { (raw: UnsafeMutableRawBufferPointer) throws(SpoolError) in
            stream.next_in = raw.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.avail_in = uInt(raw.count)
            repeat {
                output.clear()
                var status = Z_OK
                output.writeWithUnsafeMutableBytes(minimumWritableBytes: 64 * 1024) { out in
                    stream.next_out = out.baseAddress!.assumingMemoryBound(to: Bytef.self)
                    stream.avail_out = uInt(out.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    return out.count - Int(stream.avail_out)
                }
                switch status {
                case Z_OK, Z_BUF_ERROR: break
                case Z_STREAM_END: ended = true
                default: throw .compression(stream.msg.map { String(cString: $0) } ?? "inflate status \(status)")
                }
                if output.readableBytes > 0 { try inner.write(output) }
            } while stream.avail_in > 0 && !ended
            if ended && stream.avail_in > 0 { throw .compression("data follows the end of the gzip stream") }
        }
    }

    func finish() throws(SpoolError) -> SpooledDocument {
        guard ended else { throw .compression("the gzip stream ends early") }
        return try inner.finish()
    }

    func discard() { inner.discard() }
}
