// libFuzzer input function for the SFTP packet decoder: the SwiftPM target SFTPFuzz, built for fuzzing by
// tools/fuzz-sftp.sh (libFuzzer calls it; in a plain build, Replay runs it on saved inputs).
//
// Invariants checked on every input:
// - decoding never traps, and every error says something, at an offset inside the input;
// - a decoded message re-encodes to exactly the packet it came from (the codec is canonical) — except a STATUS
//   from an old server without its message or language tag, which re-encodes with them (empty) and decodes the same;
// - the stream decoder fed the input in two pieces agrees with the one-shot decoder.

import FuzzReplay
import SFTP

@_cdecl("LLVMFuzzerTestOneInput")
public func sftpFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let whole = Result { () throws(SFTPDecodingError) in try SFTPPacketDecoder.decode(packet: bytes) }
    switch whole {
    case .success(let message):
        if case .status = message {
            precondition((try? SFTPPacketDecoder.decode(packet: message.encoded)) == message, "a STATUS does not survive re-encoding")
        } else {
            precondition(message.encoded == bytes, "re-encoding differs for \(message.typeName)")
        }
    case .failure(let error):
        precondition(!error.message.isEmpty, "an error without a message")
        precondition(error.offset >= 0 && error.offset <= max(size, 4) + 4, "error offset \(error.offset) outside \(size) bytes")
    }
    var stream = SFTPPacketDecoder()
    let split = size > 0 ? Int(bytes[0]) % (size + 1) : 0
    stream.append(bytes[..<split])
    var streamed: [SFTPMessage] = []
    var failed = false
    do {
        while let message = try stream.next() { streamed.append(message) }
        stream.append(bytes[split...])
        while let message = try stream.next() { streamed.append(message) }
    } catch {
        failed = true
    }
    if case .success(let message) = whole {
        precondition(!failed && streamed == [message], "the stream decoder disagrees with the one-shot decoder")
    }
    return 0
}

#if !FUZZING
    /// A plain build's entry (a fuzzing build has libFuzzer's): runs the input function on each file named on the command line.
    @main enum Replay { static func main() { FuzzReplay.run(sftpFuzzOneInput) } }
#endif
