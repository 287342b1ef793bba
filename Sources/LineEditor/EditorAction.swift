/// What the terminal side has to do after `EditorCore` handled a key.
public enum EditorAction: Hashable, Sendable {
    /// Nothing changed on screen.
    case none
    /// Redraw the prompt line.
    case redraw
    /// Ring the bell: the key could not do anything (e.g. Tab without candidates).
    case bell
    /// Clear the screen, then redraw the prompt line at the top.
    case clearScreen
    /// Print these candidates in columns below the prompt line, then redraw it.
    case showCompletions([String])
    /// The line is finished; return it.
    case accept(String)
    /// Ctrl-D on an empty line.
    case endOfFile
    /// Ctrl-C: abandon the line.
    case interrupt
    /// Ctrl-Z: suspend the process (job control), then redraw.
    case suspend
}
