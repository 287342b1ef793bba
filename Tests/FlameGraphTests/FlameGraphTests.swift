import Foundation
import Testing

@testable import FlameGraph

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Folding `perf script` output and drawing it: what `bench … --flamegraph` writes.
@Suite struct FlameGraphTests {
    /// Three samples as perf 6.1's `perf script` prints them for `perf record -g`: two with the same stack (one of
    /// them through a frame perf could not symbolise), a command name with a space, a run of unsymbolised frames (one
    /// frame once folded), a comment line.
    static let perfScript = """
        # captured on: a test
        workbench 4242 12345.000001:     250000 cpu-clock:u: 
        \t    7f0000001000 bn_mul_mont+0x40 (/usr/lib/x86_64-linux-gnu/libcrypto.so.3)
        \t    7f0000002000 EVP_PKEY_sign+0x1f (/usr/lib/x86_64-linux-gnu/libcrypto.so.3)
        \t    555500001000 $sSS5countSivg+0x10 (/work/.build/release/workbench)
        \t    555500000100 main+0x2a (/work/.build/release/workbench)

        workbench 4242 12345.000251:     250000 cpu-clock:u: 
        \t    7f0000001000 bn_mul_mont+0x44 (/usr/lib/x86_64-linux-gnu/libcrypto.so.3)
        \t    7f0000002000 EVP_PKEY_sign+0x1f (/usr/lib/x86_64-linux-gnu/libcrypto.so.3)
        \t    555500001000 $sSS5countSivg+0x10 (/work/.build/release/workbench)
        \t    555500000100 main+0x2a (/work/.build/release/workbench)

        my tool 77/78 12345.000501:     250000 cpu-clock:u: 
        \t    7f0000003000 [unknown] (/usr/lib/x86_64-linux-gnu/libcrypto.so.3)
        \t    7f0000003100 [unknown] (/usr/lib/x86_64-linux-gnu/libcrypto.so.3)
        \t    7f0000003200 [unknown] (/usr/lib/x86_64-linux-gnu/libcrypto.so.3)
        \t    555500000100 main+0x2a (/work/.build/release/workbench)

        """

    @Test func perfScriptFoldsIntoStacksRootFirst() {
        let stacks = PerfScript.fold(Self.perfScript, symbolName: SwiftDemangler.name)
        #expect(stacks.total == 3)
        #expect(
            stacks.text == """
                my tool;main;[libcrypto.so.3] 1
                workbench;main;String.count.getter : Int;EVP_PKEY_sign;bn_mul_mont 2
                """)
    }

    @Test func foldedTextReadsBackAndRefusesALineWithoutACount() throws {
        let stacks = PerfScript.fold(Self.perfScript)
        #expect(try FoldedStacks(text: stacks.text) == stacks)
        #expect(throws: FoldedStacks.FormatError(line: 2, message: "expected `frame;frame;… count`, found \"a;b\"")) {
            try FoldedStacks(text: "a;b 3\na;b")
        }
    }

    @Test func swiftSymbolsAreDemangledAndShortened() {
        #expect(SwiftDemangler.name("$sSS5countSivg") == "String.count.getter : Int")
        #expect(SwiftDemangler.name("$s3JWT9SignedJWTV7compactACSS_tAA8JWTErrorVYKcfC") == "JWT.SignedJWT.init(compact: String) throws(JWT.JWTError)")
        #expect(SwiftDemangler.name("EVP_PKEY_sign") == "EVP_PKEY_sign")
        #expect(SwiftDemangler.name("$sNotASymbol") == "$sNotASymbol")
        #expect(
            SwiftDemangler.shortened(
                "closure #1 (Swift.UnsafeBufferPointer<Swift.UInt8>) throws(JWT.JWTError) -> JWT.CompactParts in JWT.SignedJWT.init(compact: Swift.String) -> JWT.SignedJWT"
            ) == "closure #1 (UnsafeBufferPointer<UInt8>) throws(JWT.JWTError) in JWT.SignedJWT.init(compact: String)")
        #expect(SwiftDemangler.shortened("MySwift.Thing") == "MySwift.Thing")
        // An arrow inside the parameters is not a closing bracket.
        #expect(
            SwiftDemangler.shortened("JWT.JWTVerifier.verify(_: Swift.String, key: (Swift.String) throws -> JWT.Key) throws -> JWT.SignedJWT")
                == "JWT.JWTVerifier.verify(_: String, key: (String) throws -> JWT.Key) throws")
    }

    @Test func framesAreLaidOutBySamplesWithSiblingsInNameOrder() {
        var stacks = FoldedStacks()
        stacks.add(["main", "b"], count: 3)
        stacks.add(["main", "a", "x"], count: 1)
        stacks.add(["main"], count: 2)
        stacks.add(["other"], count: 4)
        let frames = FlameGraphSVG.frames(stacks)
        typealias Frame = FlameGraphSVG.Frame
        #expect(
            frames == [
                Frame(name: "all", samples: 10, start: 0, depth: 0),
                Frame(name: "main", samples: 6, start: 0, depth: 1),
                Frame(name: "a", samples: 1, start: 0, depth: 2),
                Frame(name: "x", samples: 1, start: 0, depth: 3),
                Frame(name: "b", samples: 3, start: 1, depth: 2),
                Frame(name: "other", samples: 4, start: 6, depth: 1),
            ])
    }

    /// The SVG parses as XML, has one titled frame per frame wide enough to draw, escapes names, refers to nothing
    /// outside itself, and is the same for the same samples.
    @Test func svgIsSelfContainedWellFormedAndDeterministic() throws {
        var stacks = FoldedStacks()
        stacks.add(["main", "Array<Int>.append & grow"], count: 999)
        stacks.add(["main", "tiny"], count: 1)
        var graph = FlameGraphSVG(title: "bench <jwt>", subtitle: "perf record -g")
        graph.width = 100
        graph.minimumFrameWidth = 0.5
        let svg = graph.render(stacks)
        #expect(svg == graph.render(stacks))
        #expect(svg.contains("Array&lt;Int&gt;.append &amp; grow (999 samples, 99.9%)"))
        #expect(svg.contains("bench &lt;jwt&gt;"))
        #expect(!svg.contains("href") && !svg.contains("<script") && !svg.contains("url("))
        #if canImport(FoundationXML) || canImport(Darwin)
            let document = try XMLDocument(data: Data(svg.utf8))
            let frames = try document.nodes(forXPath: "//*[local-name()='g']")
            // all, main and the wide callee; "tiny" is 0.08 px wide at this scale and left out.
            #expect(frames.count == 3)
            let titles = try document.nodes(forXPath: "//*[local-name()='g']/*[local-name()='title']").compactMap(\.stringValue)
            #expect(titles == ["all (1000 samples, 100%)", "main (1000 samples, 100%)", "Array<Int>.append & grow (999 samples, 99.9%)"])
            #expect(try document.nodes(forXPath: "//*[local-name()='g']/*[local-name()='rect']").count == 3)
        #endif
    }

    @Test func labelsAreCutToTheirFrames() {
        #expect(FlameGraphSVG.label("EVP_PKEY_sign", width: 200) == "EVP_PKEY_sign")
        #expect(FlameGraphSVG.label("EVP_PKEY_sign", width: 50) == "EVP_..")
        #expect(FlameGraphSVG.label("EVP_PKEY_sign", width: 20) == nil)
    }
}
