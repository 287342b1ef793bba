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
/// Confined to the host's event loop.
public final class UnixHost: @unchecked Sendable {
    // @unchecked Sendable: used only on the host's event loop.

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

    /// - parameter fileSystem: the home of a user (the actor keeps them: in memory, or on disk live).
    public init(configuration: HostConfiguration, fileSystem: @escaping (String) throws -> any HomeFileSystem) {
        self.configuration = configuration
        self.accounts = AccountDirectory(configuration.accounts)
        let printers = configuration.extraPrinters.filter { !PrintSpooler.builtInPrinters.contains($0) } + PrintSpooler.builtInPrinters
        self.spooler = PrintSpooler(
            printers: printers, pagesPerMinute: configuration.pagesPerMinute, accounts: accounts,
            hostName: configuration.hostName)
        self.fileSystem = fileSystem
    }

    /// Runs `line` as `user` at host time `now`; `faults` checks a named fault point.
    public func run(_ line: String, as user: String, now: Duration, faults: (String) -> Bool) -> CommandOutcome {
        var outcome = CommandOutcome()
        outcome.duration = configuration.timing.command
        let home: any HomeFileSystem
        do {
            home = try fileSystem(user)
        } catch {
            outcome.err("sh: cannot open the home directory of \(user): \(error)\n")
            outcome.exitStatus = 1
            return outcome
        }
        let words: [String]
        do {
            words = try ShellParser.parse(line, home: home.homePath)
        } catch {
            outcome.err(error.description + "\n")
            outcome.exitStatus = 2
            return outcome
        }
        guard let name = words.first else { return outcome }
        return withoutActuallyEscaping(faults) { faults in
            var context = CommandContext(host: self, user: user, home: home, now: now, faults: faults, outcome: outcome)
            context.dispatch(name, Array(words.dropFirst()))
            return context.outcome
        }
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
        case "lpq": lpq(arguments)
        case "lprm": lprm(arguments)
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
