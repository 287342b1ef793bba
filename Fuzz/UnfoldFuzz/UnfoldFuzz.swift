// libFuzzer input function for MiG's HTTP header unfolder: the SwiftPM target UnfoldFuzz, built for fuzzing by
// tools/fuzz-unfold.sh (libFuzzer calls it; in a plain build, Replay runs it on saved inputs).
//
// The input is what a client (nginx, as the original deployment configures it) sends first: a request head, maybe a body.
//
// Invariants checked on every input:
// - finding the end of the header section and unfolding never trap;
// - the end found is just past the first CR LF CR LF (checked against a plain search), or there is none;
// - the body (everything from that end on) passes unchanged, and the header section never grows;
// - unfolding only removes line breaks and indentation and puts spaces in: the other bytes stay, in order;
// - the unfolded head still ends at its own first CR LF CR LF, so NIO's parser sees the same head and body;
// - when the head has no bare LF (every LF after a CR), no obs-fold is left and unfolding again changes nothing.

import FuzzReplay
import MiGServer

@_cdecl("LLVMFuzzerTestOneInput")
public func unfoldFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let terminator: [UInt8] = [0x0D, 0x0A, 0x0D, 0x0A]
    func plainSearch(from start: Int) -> Int? {
        var index = start
        while index + 4 <= bytes.count {
            if bytes[index] == 0x0D, bytes[index + 1] == 0x0A, bytes[index + 2] == 0x0D, bytes[index + 3] == 0x0A { return index + 4 }
            index += 1
        }
        return nil
    }
    let expected = plainSearch(from: 0)
    let end = HeaderUnfolding.endOfHeaders(bytes)
    precondition(end == expected, "end of headers \(String(describing: end)); a plain search finds \(String(describing: expected))")
    // The handler also reads through a slice of its buffer (readableBytesView); the indices must not be assumed to start at 0.
    if size > 0 {
        let shifted = HeaderUnfolding.endOfHeaders(bytes[1...])
        let plain = plainSearch(from: 1)
        precondition(shifted == plain, "end of headers in a slice: \(String(describing: shifted)), expected \(String(describing: plain))")
    }
    guard let end else { return 0 }

    let unfolded = HeaderUnfolding.unfold(bytes, end: end)
    let bodyCount = bytes.count - end
    precondition(unfolded.count >= bodyCount && unfolded.suffix(bodyCount).elementsEqual(bytes[end...]), "the body changed")
    let head = Array(unfolded.dropLast(bodyCount))
    precondition(head.count <= end, "the header section grew")
    precondition(head.suffix(4).elementsEqual(terminator), "the header section lost its final CR LF CR LF")
    precondition(HeaderUnfolding.endOfHeaders(unfolded) == head.count, "the unfolded head ends elsewhere")
    // A switch, not a Set: hashing every byte under ASan made this check most of the run time.
    func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0D || byte == 0x0A }
    precondition(head.lazy.filter { !isBlank($0) }.elementsEqual(bytes[..<end].lazy.filter { !isBlank($0) }), "unfolding changed more than folds")

    let bareLF = bytes[..<end].indices.contains { bytes[$0] == 0x0A && ($0 == 0 || bytes[$0 - 1] != 0x0D) }
    if !bareLF {
        for index in head.indices.dropLast(3) where head[index] == 0x0D && head[index + 1] == 0x0A {
            precondition(head[index + 2] != 0x20 && head[index + 2] != 0x09, "an obs-fold is left at byte \(index)")
        }
        precondition(HeaderUnfolding.unfold(unfolded, end: head.count) == unfolded, "unfolding twice changes more")
    }
    return 0
}

#if !FUZZING
    /// A plain build's entry (a fuzzing build has libFuzzer's): runs the input function on each file named on the command line.
    @main enum Replay { static func main() { FuzzReplay.run(unfoldFuzzOneInput) } }
#endif
