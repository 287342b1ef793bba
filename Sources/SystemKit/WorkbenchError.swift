/// Why a command, an actor's start, a bench, a load operation or a recording failed, in one line: the one
/// message-only error of the `workbench` command. (An error a caller switches on keeps a type of its own:
/// ``HeldIdentityUnavailable``, the scenario's `StepError`.)
package struct WorkbenchError: Error, CustomStringConvertible, Sendable {
    package let description: String
    package init(_ description: String) { self.description = description }
}
