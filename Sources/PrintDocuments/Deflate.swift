import CZlib

/// Deflate through the system zlib: raw streams as ZIP entries carry them, zlib-wrapped ones as PDF's FlateDecode
/// does. Every inflate has an output limit, so a zip bomb costs at most the limit.
enum Deflate {
    static func crc32(_ data: [UInt8]) -> UInt32 {
        data.withUnsafeBufferPointer { buffer in crc32(buffer, seed: 0) }
    }

    static func crc32(_ buffer: UnsafeBufferPointer<UInt8>, seed: UInt32) -> UInt32 {
        guard let base = buffer.baseAddress else { return seed }
        var crc = uLong(seed)
        var offset = 0
        // zlib takes a 32-bit length; larger buffers go in 1 GiB pieces.
        while offset < buffer.count {
            let chunk = min(1 << 30, buffer.count - offset)
            crc = CZlib.crc32(crc, base + offset, uInt(chunk))
            offset += chunk
        }
        return UInt32(truncatingIfNeeded: crc)
    }

    /// Raw deflate at level 6 (zlib's default). Deterministic: the same zlib gives the same bytes for the same input.
    static func deflateRaw(_ data: [UInt8]) -> [UInt8] {
        var stream = z_stream()
        guard czlib_deflate_init_raw(&stream, 6) == Z_OK else { return [] }
        defer { deflateEnd(&stream) }
        let bound = Int(deflateBound(&stream, uLong(data.count))) + 64
        var output = [UInt8](repeating: 0, count: bound)
        let produced: Int = data.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { out in
                stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.avail_in = uInt(input.count)
                stream.next_out = out.baseAddress
                stream.avail_out = uInt(out.count)
                let status = deflate(&stream, Z_FINISH)
                return status == Z_STREAM_END ? out.count - Int(stream.avail_out) : -1
            }
        }
        guard produced >= 0 else { return [] }
        output.removeLast(output.count - produced)
        return output
    }

    /// Inflates a raw deflate stream. `strict`: the stream must end properly (ZIP entries); otherwise what was
    /// inflated before the data ran out is returned (PDF readers accept a cut-short stream the same way).
    static func inflateRaw(_ data: ArraySlice<UInt8>, limit: Int, strict: Bool) throws(DocumentError) -> [UInt8] {
        var stream = z_stream()
        guard czlib_inflate_init_raw(&stream) == Z_OK else { throw DocumentError("zlib could not start inflating") }
        defer { inflateEnd(&stream) }
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        var status = Z_OK
        var overLimit = false
        data.withUnsafeBufferPointer { input in
            stream.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.avail_in = uInt(input.count)
            while status == Z_OK {
                let produced: Int = chunk.withUnsafeMutableBufferPointer { out in
                    stream.next_out = out.baseAddress
                    stream.avail_out = uInt(out.count)
                    status = inflate(&stream, Z_NO_FLUSH)
                    return out.count - Int(stream.avail_out)
                }
                if produced > limit - output.count {
                    overLimit = true
                    return
                }
                output += chunk[0..<produced]
                if status == Z_BUF_ERROR, stream.avail_in == 0, produced == 0 { return }
                if status == Z_BUF_ERROR, produced > 0 { status = Z_OK }
            }
        }
        if overLimit { throw DocumentError("compressed data inflates past the limit of \(limit) bytes (a zip bomb?)") }
        if status == Z_STREAM_END { return output }
        if !strict, status == Z_BUF_ERROR || status == Z_OK { return output }
        if status == Z_BUF_ERROR { throw DocumentError("compressed data ends early: the deflate stream is truncated") }
        throw DocumentError("compressed data is not a valid deflate stream (zlib status \(status))")
    }

    /// PDF's FlateDecode: a zlib stream (2-byte header, raw deflate, Adler-32). The header is checked and skipped and
    /// the checksum not required, as real readers tolerate; data without a valid header is tried as raw deflate.
    static func inflateZlib(_ data: ArraySlice<UInt8>, limit: Int) throws(DocumentError) -> [UInt8] {
        if data.count >= 2 {
            let cmf = data[data.startIndex]
            let flags = data[data.startIndex + 1]
            if cmf & 0x0F == 8, (UInt16(cmf) << 8 | UInt16(flags)) % 31 == 0, flags & 0x20 == 0 {
                return try inflateRaw(data.dropFirst(2), limit: limit, strict: false)
            }
        }
        return try inflateRaw(data, limit: limit, strict: false)
    }
}
