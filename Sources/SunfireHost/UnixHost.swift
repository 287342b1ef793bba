/// What the host is: its accounts, its printers and how fast its tools run.
public struct HostConfiguration: Sendable {
    public var accounts: [UnixAccount] = UnixAccount.demo
    /// Printers beyond the app's twelve (e.g. `psc115`).
    public var extraPrinters: [String] = []
    public var pagesPerMinute = 30
    public var timing = HostTiming()
    public var hostName = "sunfire"

    public init() {}
}

/// The Unix host behind Sunfire's SSH: runs one command line for a user — parsed by ``ShellParser``, never by a real
/// shell — with the commands the SOC Print app uses, each with its real stdout, stderr and exit status.
///
/// A command runs in two steps (``prepare(_:as:now:faults:)``, then ``finish(_:faults:)``) so that its file work can
/// leave the host's event loop: the first touches only the user's home and may run on any thread (the node's
/// blocking threads live); the second is the spooler's part (lpr, lpq, lprm), on the host's event loop, where the
/// accounts and the spooler are confined. ``run(_:as:now:faults:)`` does both at once.
public final class UnixHost: @unchecked Sendable {
    // @unchecked Sendable: `accounts` and `spooler` are used only on the host's event loop; `prepare` reads only
    // `configuration` (never changes) and calls `fileSystem`, which the actor makes safe on any thread (Sunfire keeps
    // its homes behind locks, see LockedHomeFileSystem).

    public enum Fault {
        /// Converters run `HostTiming.slowConverterFactor` times slower.
        public static let slowConverter = "sunfire.slow-converter"
        /// Writes fail with "No space left on device".
        public static let diskFull = "sunfire.disk-full"
    }

    /// Every fault point the host checks.
    public static let faultPoints = [Fault.slowConverter, Fault.diskFull] + PrintSpooler.Fault.all
    /// Largest document a converter or lpr reads whole.
    public static let maximumDocumentBytes = 64 << 20

    public let configuration: HostConfiguration
    public let accounts: AccountDirectory
    public let spooler: PrintSpooler
    private let fileSystem: (String) throws -> any HomeFileSystem

    /// - parameter fileSystem: the home of a user (the actor keeps them: in memory, or on disk live); called from the
    ///   thread ``prepare(_:as:now:faults:)`` runs on, so it must be safe there.
    public init(configuration: HostConfiguration, fileSystem: @escaping (String) throws -> any HomeFileSystem) {
        self.configuration = configuration
        self.accounts = AccountDirectory(configuration.accounts)
        let printers = configuration.extraPrinters.filter { !PrintSpooler.builtInPrinters.contains($0) } + PrintSpooler.builtInPrinters
        self.spooler = PrintSpooler(
            printers: printers, pagesPerMinute: configuration.pagesPerMinute, accounts: accounts,
            hostName: configuration.hostName)
        self.fileSystem = fileSystem
    }

    /// Runs `line` as `user` at host time `now`; `faults` checks a named fault point. Both steps at once, on the
    /// host's event loop.
    public func run(_ line: String, as user: String, now: Duration, faults: (String) -> Bool) -> CommandOutcome {
        finish(prepare(line, as: user, now: now, faults: faults), faults: faults)
    }

    /// A command's first step: parses `line` and does its file work in `user`'s home. Touches no account or spooler
    /// state, so it may run on any thread.
    public func prepare(_ line: String, as user: String, now: Duration, faults: (String) -> Bool) -> PreparedCommand {
        var outcome = CommandOutcome()
        outcome.duration = configuration.timing.command
        let home: any HomeFileSystem
        do {
            home = try fileSystem(user)
        } catch {
            outcome.err("sh: cannot open the home directory of \(user): \(error)\n")
            outcome.exitStatus = 1
            return PreparedCommand(outcome: outcome)
        }
        let words: [String]
        do {
            words = try ShellParser.parse(line, home: home.homePath)
        } catch {
            outcome.err(error.description + "\n")
            outcome.exitStatus = 2
            return PreparedCommand(outcome: outcome)
        }
        guard let name = words.first else { return PreparedCommand(outcome: outcome) }
        return withoutActuallyEscaping(faults) { faults in
            var context = CommandContext(host: self, user: user, home: home, now: now, faults: faults, outcome: outcome)
            context.dispatch(name, Array(words.dropFirst()))
            return PreparedCommand(outcome: context.outcome, spooler: context.spoolerStep.map { ($0, user, home, now) })
        }
    }

    /// Whether `line`'s first step reads and writes no file (its command only prints, or asks the spooler; a line that
    /// does not parse is refused without one), so that with the user's home open the whole command may run where
    /// the host's state lives. Keep in step with ``CommandContext/dispatch(_:_:)``.
    public static func touchesNoFiles(_ line: String, home: String) -> Bool {
        guard let words = try? ShellParser.parse(line, home: home), let name = words.first else { return true }
        return ["echo", "pwd", "whoami", "true", "lpq", "lprm"].contains(name)
    }

    /// A command's second step: what it asks of the spooler, if anything. On the host's event loop.
    public func finish(_ prepared: PreparedCommand, faults: (String) -> Bool) -> CommandOutcome {
        guard let (step, user, home, now) = prepared.spooler else { return prepared.outcome }
        return withoutActuallyEscaping(faults) { faults in
            var context = CommandContext(host: self, user: user, home: home, now: now, faults: faults, outcome: prepared.outcome)
            context.spool(step)
            return context.outcome
        }
    }
}

/// A command whose file work is done, waiting for its spooler step (see ``UnixHost/prepare(_:as:now:faults:)``).
public struct PreparedCommand: Sendable {
    /// What the command has printed so far (all of it, for a command without a spooler step).
    public var outcome: CommandOutcome
    let spooler: (step: SpoolerStep, user: String, home: any HomeFileSystem, now: Duration)?

    init(outcome: CommandOutcome, spooler: (step: SpoolerStep, user: String, home: any HomeFileSystem, now: Duration)? = nil) {
        self.outcome = outcome
        self.spooler = spooler
    }
}

/// One command's run: where it writes its output and what it may touch.
struct CommandContext {
    let host: UnixHost
    let user: String
    let home: any HomeFileSystem
    let now: Duration
    let faults: (String) -> Bool
    var outcome: CommandOutcome
    /// What the command leaves for the spooler (``UnixHost/finish(_:faults:)``).
    var spoolerStep: SpoolerStep?

    var timing: HostTiming { host.configuration.timing }

    mutating func dispatch(_ name: String, _ arguments: [String]) {
        switch name {
        case "mkdir": mkdir(arguments)
        case "rm": rm(arguments)
        case "ls": ls(arguments)
        case "find": find(arguments)
        case "md5": md5(arguments)
        case "cat": cat(arguments)
        case "echo": outcome.out(arguments.joined(separator: " ") + "\n")
        case "pwd": outcome.out(home.homePath + "\n")
        case "whoami": outcome.out(user + "\n")
        case "true": break
        case "java": java(arguments)
        case "gs": ghostscript(arguments)
        case "pdftops": pdftops(arguments)
        case "lpr": lpr(arguments)
        case "lpq": spoolerStep = .lpq(arguments)
        case "lprm": spoolerStep = .lprm(arguments)
        default:
            outcome.err("sh: 1: \(name): not found\n")
            outcome.exitStatus = 127
        }
    }

    /// Reports a failure the way the command does and remembers the exit status.
    mutating func fail(_ message: String, status: Int32 = 1) {
        outcome.err(message + "\n")
        outcome.exitStatus = status
    }

    mutating func event(_ name: String, _ fields: [(String, String)]) {
        outcome.events.append(HostEvent(name, fields))
    }

    /// Converter time, slowed while the slow-converter fault fires.
    mutating func spend(_ duration: Duration) {
        outcome.duration += faults(UnixHost.Fault.slowConverter) ? duration * timing.slowConverterFactor : duration
    }

    /// A file's bytes, or nil with the error already reported as `tool: path: reason`.
    mutating func readFile(_ path: String, tool: String) -> [UInt8]? {
        do {
            let resolved = try home.resolve(path)
            return try home.readAll(resolved, limit: UnixHost.maximumDocumentBytes)
        } catch {
            fail("\(tool): \(path): \(error)")
            return nil
        }
    }

    /// Writes a tool's output file; reports and returns false when it cannot.
    mutating func writeFile(_ path: String, _ bytes: [UInt8], tool: String) -> Bool {
        do {
            try home.writeAll(try home.resolve(path), bytes)
            return true
        } catch {
            if error.code == .diskQuotaExceeded { event("disk-quota-exceeded", [("user", user), ("path", path)]) }
            fail("\(tool): \(path): \(error)")
            return false
        }
    }
}
