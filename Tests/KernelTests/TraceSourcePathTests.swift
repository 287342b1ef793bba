import Testing

@testable import Kernel

/// A library's source path in an error text leaves the trace as the file's name only, wherever the checkout lives;
/// text without one is left alone (and is found so at a glance, since every field of every event is asked).
@Suite struct TraceSourcePathTests {
    @Test(arguments: [
        ("handshake failed at /home/me/p/.build/checkouts/boringssl/handshake.cc:393", "handshake failed at handshake.cc:393"),
        ("x at at /a/b.c:1 and at /d/e.c:2]", "x at at b.c:1 and at e.c:2]"),
        (" at /", " at "),
        ("https://mig/ipp/print at 3s", "https://mig/ipp/print at 3s"),
        ("at /no-leading-space", "at /no-leading-space"),
        ("", ""),
        ("naïve  at /ü/ß.c:7", "naïve  at ß.c:7"),
    ])
    func aSourcePathBecomesItsFileName(text: String, expected: String) {
        #expect(Trace.withoutSourcePaths(text) == expected)
        #expect(Trace.mentionsSourcePath(text) == text.contains(" at /"))
    }
}
