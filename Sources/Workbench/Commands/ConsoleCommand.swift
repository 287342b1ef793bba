import ArgumentParser
import Foundation
import Kernel
import LineEditor
import Scenario
import SystemKit
import Wire

/// `workbench` (no arguments): the console. The same language as scenario files, one line at a time, on
/// a live simulated world: line editing, persistent history, tab completion, `help`. Reads piped input too.
struct ConsoleCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "console",
        abstract: "Interactive console on the simulated wire (the default command)."
    )

    @OptionGroup var seed: SeedOption

    @Option(help: "History file (default: $XDG_STATE_HOME/workbench/history or ~/.workbench_history).")
    var history: String?

    func run() throws {
        let session = ConsoleSession(seed: seed.value)
        let interactive = isatty(STDIN_FILENO) == 1
        let store = History()
        if interactive { try? store.load(from: history ?? History.defaultPath()) }
        let editor = LineEditor(prompt: "workbench> ", history: store) { line, cursor in
            session.complete(line: line, cursor: cursor)
        }
        if interactive {
            print("Workbench console — simulated wire, seed \(seed.value). 'help' lists the language; 'quit' leaves.")
        }
        while let line = editor.readLine() {
            let outcome = session.handle(line)
            // The prompt shows the virtual time the line left the world at.
            editor.prompt = "workbench \(session.kernel.now.workbenchText)> "
            if outcome == .quit { break }
            if case .failed(let code) = outcome, !interactive {
                // Piped or redirected input is a script: it stops at the first line that fails, as `sqlite3 -bail`.
                printError("stopped at line \(session.lineNumber) of the input (exit \(code.rawValue))")
                throw code
            }
        }
        if session.failedExpectations > 0 { throw ExitStatus.checkFailed }
    }
}
