import LineEditor
import Testing

@Suite struct LineBufferTests {
    @Test func insertInTheMiddle() {
        var buffer = LineBuffer("hlo", cursor: 1)
        buffer.insert("el")
        #expect(buffer.text == "hello")
        #expect(buffer.cursor == 3)
    }

    @Test func cursorMovesByCharacter() {
        var buffer = LineBuffer("añ😀🇫🇷b")
        #expect(buffer.count == 5)
        buffer.moveLeft()
        buffer.moveLeft()
        #expect(buffer.cursor == 3)
        buffer.deleteBackward()  // the emoji, all four bytes of it
        #expect(buffer.text == "añ🇫🇷b")
        buffer.deleteForward()  // the flag, two scalars
        #expect(buffer.text == "añb")
        #expect(buffer.cursor == 2)
    }

    @Test func combiningMarkMergesWithPreviousCharacter() {
        var buffer = LineBuffer("cafe")
        buffer.insert("\u{301}")
        #expect(buffer.text == "cafe\u{301}")
        #expect(buffer.count == 4)
        #expect(buffer.cursor == 4)
        buffer.deleteBackward()
        #expect(buffer.text == "caf")
    }

    @Test func movementStopsAtTheEnds() {
        var buffer = LineBuffer("ab", cursor: 0)
        let result1 = buffer.moveLeft()
        #expect(!result1)
        buffer.moveToEnd()
        let result2 = buffer.moveRight()
        #expect(!result2)
        let result3 = buffer.deleteForward()
        #expect(!result3)
        buffer.moveToStart()
        let result4 = buffer.deleteBackward()
        #expect(!result4)
        #expect(buffer.text == "ab")
    }

    @Test func killPreviousWordUsesWhitespace() {
        var buffer = LineBuffer("run scenarios/a.wb  ")
        let result5 = buffer.killPreviousWord()
        #expect(result5 == "scenarios/a.wb  ")
        #expect(buffer.text == "run ")
        let result6 = buffer.killPreviousWord()
        #expect(result6 == "run ")
        #expect(buffer.text == "")
        let result7 = buffer.killPreviousWord()
        #expect(result7 == "")
    }

    @Test func killPreviousWordInTheMiddle() {
        var buffer = LineBuffer("one two three", cursor: 7)
        buffer.killPreviousWord()
        #expect(buffer.text == "one  three")
        #expect(buffer.cursor == 4)
    }

    @Test func killToEndAndToStart() {
        var buffer = LineBuffer("héllo wörld", cursor: 5)
        let result8 = buffer.killToEnd()
        #expect(result8 == " wörld")
        #expect(buffer.text == "héllo")
        buffer.moveCursor(to: 2)
        let result9 = buffer.killToStart()
        #expect(result9 == "hé")
        #expect(buffer.text == "llo")
        #expect(buffer.cursor == 0)
    }

    @Test func wordMovement() {
        var buffer = LineBuffer("run  some-file.wb")
        buffer.moveWordLeft()
        #expect(buffer.cursor == 15)
        buffer.moveWordLeft()
        #expect(buffer.cursor == 10)
        buffer.moveWordLeft()
        #expect(buffer.cursor == 5)
        buffer.moveWordRight()
        #expect(buffer.cursor == 9)
        buffer.moveToStart()
        buffer.moveWordRight()
        #expect(buffer.cursor == 3)
    }

    @Test func replaceRange() {
        var buffer = LineBuffer("run sce", cursor: 7)
        buffer.replace(4..<7, with: "scenario ")
        #expect(buffer.text == "run scenario ")
        #expect(buffer.cursor == 13)
    }
}
