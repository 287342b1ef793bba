// libFuzzer input function for Sunfire's shell parser: the SwiftPM target ShellFuzz, built for fuzzing by
// tools/fuzz-shell.sh (libFuzzer calls it; in a plain build, Replay runs it on saved inputs).
//
// Invariants checked on every input:
// - parsing never traps; a refusal always says what was wrong (`sh: …`);
// - words never come back holding NUL bytes, and never more than the limit;
// - quoting every word with ShellParser.quote and parsing again gives the same words (what a client that quotes
//   properly sends is what the host runs).

import FuzzReplay
import SunfireHost

@_cdecl("LLVMFuzzerTestOneInput")
public func shellFuzzOneInput(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let line = String(decoding: UnsafeBufferPointer(start: data, count: size), as: UTF8.self)
    do {
        let words = try ShellParser.parse(line, home: "/home/demo")
        precondition(words.count <= ShellParser.maximumWords, "too many words")
        precondition(!words.contains { $0.utf8.contains(0) }, "a NUL byte in a word")
        let requoted = words.map(ShellParser.quote).joined(separator: " ")
        if requoted.utf8.count <= ShellParser.maximumLineBytes {
            let again = try ShellParser.parse(requoted, home: "/home/demo")
            precondition(again == words, "re-quoted words parse differently: \(words) → \(again)")
        }
    } catch {
        precondition(error.description.hasPrefix("sh: "), "a refusal that does not say it is the shell's: \(error)")
    }
    return 0
}

#if !FUZZING
    /// A plain build's entry (a fuzzing build has libFuzzer's): runs the input function on each file named on the command line.
    @main enum Replay { static func main() { FuzzReplay.run(shellFuzzOneInput) } }
#endif
