import Foundation

/// Runs a command to completion and captures its standard output, for the benches' peers.
///
/// Not Foundation's `Process`: its child inherits this process's blocked signals, and `openssl speed`
/// times itself with SIGALRM, so it would never stop. posix_spawn with an empty signal mask and default
/// handlers gives the child a clean slate.
package enum ChildProcess {
    package struct Failure: Error, CustomStringConvertible {
        package let description: String

        package init(description: String) {
            self.description = description
        }
    }

    /// The command's standard output; standard error goes to /dev/null, or to `errorFile`.
    /// - parameters:
    ///   - arguments: the program (looked up in PATH) and its arguments.
    ///   - environment: variables added to (or replacing those of) this process's environment.
    ///   - errorFile: a file for the command's standard error (made or emptied), whose end a failure quotes.
    /// - throws: `Failure` when the program cannot be started or exits with a non-zero status.
    package static func output(_ arguments: [String], environment: [String: String] = [:], errorFile: String? = nil) throws -> String {
        var pipeEnds: [Int32] = [0, 0]
        guard pipe(&pipeEnds) == 0 else { throw Failure(description: "pipe failed: errno \(errno)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addclose(&actions, pipeEnds[0])
        posix_spawn_file_actions_addopen(&actions, 2, errorFile ?? "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        var all = sigset_t()
        sigemptyset(&none)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var merged = ProcessInfo.processInfo.environment
        merged.merge(environment) { _, new in new }
        var argv = arguments.map { strdup($0) } + [nil]
        var envp = merged.sorted { $0.key < $1.key }.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var pid: pid_t = 0
        let status = posix_spawnp(&pid, arguments[0], &actions, &attributes, &argv, &envp)
        close(pipeEnds[1])
        guard status == 0 else {
            close(pipeEnds[0])
            throw Failure(description: "cannot run \(arguments[0]): \(String(cString: strerror(status)))")
        }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(pipeEnds[0], &buffer, buffer.count)
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { break }
            output.append(contentsOf: buffer[0..<count])
        }
        close(pipeEnds[0])
        var exitStatus: Int32 = 0
        while waitpid(pid, &exitStatus, 0) < 0 && errno == EINTR {}
        let text = String(decoding: output, as: UTF8.self)
        // WIFEXITED and WEXITSTATUS are macros Swift cannot import: the low 7 bits are the signal, bits 8-15 the status.
        guard exitStatus & 0x7F == 0, (exitStatus >> 8) & 0xFF == 0 else {
            let errors = errorFile.flatMap { try? String(contentsOfFile: $0, encoding: .utf8) }.map { "; its errors: \($0.suffix(800))" } ?? ""
            throw Failure(
                description: "\(arguments.joined(separator: " ")) failed (wait status \(exitStatus)); it printed: \(text.suffix(500))\(errors)")
        }
        return text
    }
}
