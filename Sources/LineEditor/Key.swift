/// One decoded keystroke, independent of the byte encoding the terminal used for it.
public enum Key: Hashable, Sendable {
    /// Printable text. Several characters arrive as one key when they came in one read (a paste),
    /// so the editor can insert them in one step.
    case text(String)
    /// Return or Enter (CR or LF).
    case enter
    /// Tab (Ctrl-I).
    case tab
    /// Backspace (DEL) and Ctrl-H.
    case backspace
    /// The Delete key (`ESC [ 3 ~`).
    case delete
    /// Arrow keys, CSI (`ESC [ D`) or SS3 (`ESC O D`) form.
    case left
    /// Right arrow.
    case right
    /// Up arrow.
    case up
    /// Down arrow.
    case down
    /// Home (`ESC [ H`, `ESC O H`, `ESC [ 1 ~`, `ESC [ 7 ~`).
    case home
    /// End (`ESC [ F`, `ESC O F`, `ESC [ 4 ~`, `ESC [ 8 ~`).
    case end
    /// Ctrl-Left and its variants.
    case wordLeft
    /// Ctrl-Right and its variants.
    case wordRight
    /// A control key that has no dedicated case, named by its lowercase letter: Ctrl-A is `.control("a")`.
    /// Codes outside the letters use their caret name (`"@"`, `"\\"`, `"]"`, `"^"`, `"_"`).
    case control(Character)
    /// Alt (or Esc) followed by a character, e.g. Alt-B is `.meta("b")`.
    case meta(Character)
    /// A lone Escape, reported only when the decoder is flushed.
    case escape
    /// A well-formed escape sequence the editor does not know; kept so it can be ignored rather than typed.
    case unknown([UInt8])
}
