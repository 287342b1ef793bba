/// Terminal column widths, so the cursor can be placed after wide (CJK, emoji) and zero-width
/// (combining) characters. Glibc's `wcwidth` would need `setlocale`, which is process-global
/// state a library should not touch, hence this small table of the common wide ranges.
enum DisplayWidth {
    /// Columns a string occupies, skipping ANSI escape sequences (e.g. colours in a prompt).
    static func of(_ string: String) -> Int {
        var width = 0
        var inEscape = false
        var sawBracket = false
        for character in string {
            if inEscape {
                // CSI sequences end at a byte in @...~; a two-byte escape ends right after ESC.
                if !sawBracket, character == "[" {
                    sawBracket = true
                    continue
                }
                if !sawBracket || character.unicodeScalars.first.map({ (0x40...0x7E).contains($0.value) }) == true {
                    inEscape = false
                }
                continue
            }
            if character == "\u{1B}" {
                inEscape = true
                sawBracket = false
                continue
            }
            width += of(character)
        }
        return width
    }

    /// Columns one character occupies when rendered by `rendered(_:)`.
    static func of(_ character: Character) -> Int {
        guard let first = character.unicodeScalars.first else { return 0 }
        if isControl(first) { return 2 }  // shown as ^X
        if character.unicodeScalars.contains(where: { isWide($0) || $0.properties.isEmojiPresentation }) {
            return 2
        }
        // Emoji variation selector turns a text-style symbol into a two-column emoji.
        if character.unicodeScalars.contains(where: { $0.value == 0xFE0F }) { return 2 }
        switch first.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format: return 0
        default: return 1
        }
    }

    /// What to write for a character: control characters (a newline recalled from history) are
    /// shown in caret notation so they cannot move the terminal cursor behind the editor's back.
    static func rendered(_ character: Character) -> String {
        guard let first = character.unicodeScalars.first, isControl(first) else { return String(character) }
        let caret = first.value == 0x7F ? "?" : String(Unicode.Scalar(UInt8(first.value) + 0x40))
        return "^" + caret
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || scalar.value == 0x7F
    }

    private static func isWide(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x1100...0x115F, 0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF,
            0xA000...0xA4CF, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE30...0xFE4F, 0xFF00...0xFF60,
            0xFFE0...0xFFE6, 0x1F300...0x1F64F, 0x1F900...0x1F9FF, 0x20000...0x2FFFD, 0x30000...0x3FFFD:
            return true
        default:
            return false
        }
    }
}
