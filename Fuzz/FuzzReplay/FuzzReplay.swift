import Foundation

/// What a fuzz target (Fuzz/*Fuzz) does in a plain build: runs its input function once on each file named on the
/// command line, so a crash file replays under a debugger, and `swift build` compiles and links every fuzz target.
///
/// A fuzzing build (tools/fuzz-lib.sh: `--sanitize fuzzer -Xswiftc -DFUZZING`, its own scratch path) has no use for
/// it: SwiftPM then builds the target as a library, libFuzzer's own `main` drives the run and calls the target's
/// `LLVMFuzzerTestOneInput`, and the target's `@main enum Replay` is left out by `#if !FUZZING`.
public enum FuzzReplay {
    public static func run(_ testOneInput: (UnsafePointer<UInt8>, Int) -> CInt) -> Never {
        for path in CommandLine.arguments.dropFirst() {
            guard let input = FileManager.default.contents(atPath: path) else {
                FileHandle.standardError.write(Data("cannot read \(path)\n".utf8))
                exit(2)
            }
            // One byte more than the input, so even an empty input has an address, as under libFuzzer.
            let bytes = [UInt8](input) + [0]
            _ = bytes.withUnsafeBufferPointer { testOneInput($0.baseAddress!, input.count) }
        }
        exit(0)
    }
}
