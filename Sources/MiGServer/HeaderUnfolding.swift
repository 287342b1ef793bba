/// The byte work of ``HeaderUnfolder``, free of NIO and `package` so the fuzz target UnfoldFuzz (tools/fuzz-unfold.sh)
/// drives it with bytes alone.
package enum HeaderUnfolding {
    /// The index just past the header section's final CR LF (start of the body), if it has arrived.
    package static func endOfHeaders<Bytes: RandomAccessCollection>(_ bytes: Bytes) -> Int? where Bytes.Element == UInt8, Bytes.Index == Int {
        var index = bytes.startIndex
        while index + 3 < bytes.endIndex {
            if bytes[index] == 0x0D, bytes[index + 1] == 0x0A, bytes[index + 2] == 0x0D, bytes[index + 3] == 0x0A { return index + 4 }
            index += 1
        }
        return nil
    }

    /// `bytes` with every obs-fold before `end` (the value ``endOfHeaders(_:)`` gave) replaced by one space, and
    /// the bytes from `end` on (the start of the body) as they are.
    package static func unfold<Bytes: RandomAccessCollection>(_ bytes: Bytes, end: Int) -> [UInt8] where Bytes.Element == UInt8, Bytes.Index == Int {
        var unfolded: [UInt8] = []
        unfolded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < end {
            let byte = bytes[index]
            // (CR) LF followed by SP or HTAB is a fold (nginx folds with a bare LF): one space replaces it and
            // the indentation.
            let lineBreak = byte == 0x0D && index + 1 < end && bytes[index + 1] == 0x0A ? 2 : byte == 0x0A ? 1 : 0
            if lineBreak > 0, index + lineBreak < end, bytes[index + lineBreak] == 0x20 || bytes[index + lineBreak] == 0x09 {
                unfolded.append(0x20)
                index += lineBreak
                while index < end, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
                continue
            }
            unfolded.append(byte)
            index += 1
        }
        unfolded.append(contentsOf: bytes[end...])
        return unfolded
    }

    /// Whether bytes can belong to a request's header section: text, where the only control bytes are CR, LF
    /// and HT. A TLS ClientHello (it begins 0x16 0x03) sent to a plain port is not, and never ends in a blank
    /// line: it goes to the parser at once, which answers 400 and closes, as nginx does, instead of waiting.
    static func isHeaderText<Bytes: Sequence>(_ bytes: Bytes) -> Bool where Bytes.Element == UInt8 {
        bytes.allSatisfy { $0 >= 0x20 || $0 == 0x0D || $0 == 0x0A || $0 == 0x09 }
    }
}
