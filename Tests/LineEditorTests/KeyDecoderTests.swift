import LineEditor
import Testing

@Suite struct KeyDecoderTests {
    private func decode(_ chunks: [[UInt8]]) -> [Key] {
        var decoder = KeyDecoder()
        return chunks.flatMap { decoder.feed($0) }
    }

    private func bytes(_ string: String) -> [UInt8] { Array(string.utf8) }

    @Test func plainTextCoalescesWithinARead() {
        #expect(decode([bytes("help")]) == [.text("help")])
        #expect(decode([bytes("he"), bytes("lp")]) == [.text("he"), .text("lp")])
    }

    @Test func controlKeys() {
        #expect(
            decode([[0x01, 0x05, 0x0B, 0x15, 0x17, 0x03, 0x04]])
                == [.control("a"), .control("e"), .control("k"), .control("u"), .control("w"), .control("c"), .control("d")])
        #expect(decode([[0x0D], [0x0A], [0x09], [0x7F], [0x08]]) == [.enter, .enter, .tab, .backspace, .backspace])
    }

    @Test func csiArrowsAndTildeKeys() {
        #expect(decode([bytes("\u{1B}[A\u{1B}[B\u{1B}[C\u{1B}[D")]) == [.up, .down, .right, .left])
        #expect(decode([bytes("\u{1B}[H\u{1B}[F")]) == [.home, .end])
        #expect(decode([bytes("\u{1B}[1~\u{1B}[4~\u{1B}[3~\u{1B}[7~\u{1B}[8~")]) == [.home, .end, .delete, .home, .end])
        #expect(decode([bytes("\u{1B}[1;5C\u{1B}[1;5D\u{1B}[1;2C")]) == [.wordRight, .wordLeft, .right])
    }

    @Test func ss3Keys() {
        #expect(decode([bytes("\u{1B}OA\u{1B}OB\u{1B}OC\u{1B}OD\u{1B}OH\u{1B}OF")]) == [.up, .down, .right, .left, .home, .end])
    }

    @Test func escapeSequenceSplitAcrossReads() {
        #expect(decode([[0x1B], bytes("["), bytes("A")]) == [.up])
        #expect(decode([[0x1B], bytes("O"), bytes("D")]) == [.left])
        #expect(decode([bytes("ab\u{1B}[3"), bytes("~cd")]) == [.text("ab"), .delete, .text("cd")])
        #expect(decode([bytes("\u{1B}[1;"), bytes("5C")]) == [.wordRight])
    }

    @Test func unknownSequencesAreNotTyped() {
        #expect(decode([bytes("\u{1B}[200~x")]) == [.unknown(bytes("\u{1B}[200~")), .text("x")])
        #expect(decode([bytes("\u{1B}[Z")]) == [.unknown(bytes("\u{1B}[Z"))])
    }

    @Test func metaKeys() {
        #expect(decode([bytes("\u{1B}b\u{1B}f")]) == [.meta("b"), .meta("f")])
    }

    @Test func loneEscapeWaitsForFlush() {
        var decoder = KeyDecoder()
        let result1 = decoder.feed([0x1B])
        #expect(result1 == [])
        #expect(decoder.isAwaitingEscapeSequence)
        let result2 = decoder.flush()
        #expect(result2 == [.escape])
        #expect(!decoder.hasPending)
        // ESC ESC [ A: the first ESC is the Escape key, the rest is Up.
        let result3 = decoder.feed(bytes("\u{1B}\u{1B}[A"))
        #expect(result3 == [.escape, .up])
    }

    @Test func multiByteUTF8SplitAcrossReads() {
        let euro = bytes("€")  // E2 82 AC
        #expect(decode([[euro[0]], [euro[1]], [euro[2]]]) == [.text("€")])
        let emoji = bytes("😀")  // four bytes
        #expect(decode([Array(emoji[0..<3]), Array(emoji[3...]) + bytes("!")]) == [.text("😀!")])
        #expect(decode([bytes("é"), bytes("日本")]) == [.text("é"), .text("日本")])
    }

    @Test func invalidUTF8BecomesReplacementCharacter() {
        #expect(decode([[0xFF, 0x41]]) == [.text("\u{FFFD}A")])
        // A lead byte cut off by an ASCII byte: the ASCII byte survives.
        #expect(decode([[0xE2, 0x41]]) == [.text("\u{FFFD}A")])
        var decoder = KeyDecoder()
        let result4 = decoder.feed([0xE2, 0x82])
        #expect(result4 == [])
        #expect(!decoder.isAwaitingEscapeSequence)
        let result5 = decoder.flush()
        #expect(result5 == [.text("\u{FFFD}\u{FFFD}")])
    }
}
