import ArgumentParser
import Foundation

/// The exit statuses of every command, as the README's table gives them.
package enum ExitStatus {
    /// 0: everything held.
    package static let passed = ExitCode.success
    /// 1: a check did not hold: an expectation, an invariant, determinism, a step that could not run, a bench target
    /// under `--check`.
    package static let checkFailed = ExitCode.failure
    /// 2: the scenario (or another input file) is wrong: it names something that does not exist, does not parse, or
    /// cannot be read; nothing ran.
    package static let scenarioWrong = ExitCode(2)
    // 64: the command line is wrong (ArgumentParser's `ExitCode.validationFailure`).

    /// An input file a command cannot use (unreadable, not what it should hold: a bench's message or key, a swarm
    /// result): says why and gives ``scenarioWrong``, so a script tells "nothing ran" from "a check failed".
    package static func inputWrong(_ message: String) -> ExitCode {
        printError("error: " + message)
        return scenarioWrong
    }
}

/// Writes a line to standard error, after what standard output holds so far (so a piped run reads in order).
package func printError(_ text: String) {
    fflush(nil)  // every output stream, standard output among them
    FileHandle.standardError.write(Data((text + "\n").utf8))
}
