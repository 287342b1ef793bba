import Foundation
import NIOCore
import SunfireHost
import Synchronization
import Wire
import WireHTTP

/// Sunfire's state: the Unix host, the users' homes, the whitelist and the spooler's timer.
///
/// Who owns what: the host's accounts and spooler, and the spooler's timer, live on the node's loop (the home): the
/// timer, `administer` and the account directory run there, and SSH connections, which run on every loop of the live
/// wire, reach them through `onHome`. The homes' files are touched only on the node's blocking threads (inline under
/// simulation), each home behind its own lock; the whitelist, read by every accepted connection, behind a lock too.
final class SunfireCore: @unchecked Sendable {
    // @unchecked Sendable: `host`'s accounts and spooler and `spoolerTimer` are used only on `node.eventLoop`; `host` is
    // set once in `init`; `homes` and `whitelist` are behind locks.

    let node: Node
    let configuration: Sunfire.Configuration
    private(set) var host: UnixHost!
    private let homes = Mutex<[String: any HomeFileSystem]>([:])
    private var spoolerTimer: NodeTimer?
    private let whitelist: Mutex<[AddressRange]>

    init(node: Node, configuration: Sunfire.Configuration) throws {
        self.node = node
        self.configuration = configuration
        self.whitelist = Mutex(configuration.whitelist)
        for point in UnixHost.faultPoints { node.faults.declare(point) }
        host = UnixHost(configuration: configuration.host) { [unowned self] user in try self.fileSystem(for: user) }
        host.accounts.chargesWhileAnyLeft = node.planted(.sunfireQuotaAnyLeft)
    }

    /// Host time: the node's monotonic clock.
    var now: Duration { node.clock.now.uptime }

    var currentWhitelist: [AddressRange] { whitelist.withLock { $0 } }
    func setWhitelist(_ ranges: [AddressRange]) {
        whitelist.withLock { $0 = ranges }
        node.trace("whitelist", [("ranges", ranges.map(\.description).joined(separator: ","))])
    }

    /// On the home loop.
    func authenticate(user: String, password: String) -> Bool {
        host.accounts.authenticateUnix(user: user, password: password)
    }

    /// `body` on the node's blocking threads live (inline under simulation), its result on `eventLoop`: the homes' file
    /// work, which must never hold up a loop.
    func blocking<T: Sendable>(answerOn eventLoop: any EventLoop, _ body: @escaping @Sendable () throws -> T) -> EventLoopFuture<T> {
        node.blockingWork.run(on: eventLoop, body)
    }

    /// The user's home, made on first use (in memory, or a folder under `homesDirectory`). Does disk I/O the first
    /// time: call it where file work runs (see ``blocking(answerOn:_:)``).
    func fileSystem(for user: String) throws -> any HomeFileSystem {
        if let home = openHome(of: user) { return home }
        // The configured accounts: the directory's copies differ only in their print quotas.
        guard let account = configuration.host.accounts.first(where: { $0.user == user }) else {
            throw FileSystemError(.permissionDenied, user)
        }
        let node = self.node
        let diskFull: @Sendable () -> Bool = { node.fault(UnixHost.Fault.diskFull) }
        // Made outside the lock (a folder created, its usage counted), so a lookup never waits for a disk.
        let home: any HomeFileSystem
        if let make = configuration.makeHome {
            home = try make(user, "/home/\(user)", account.diskQuotaBytes, diskFull)
        } else if let directory = configuration.homesDirectory {
            home = try DiskHomeFileSystem(
                root: "\(directory)/\(user)", homePath: "/home/\(user)", quotaBytes: account.diskQuotaBytes,
                diskFull: diskFull)
        } else {
            let clock = node.clock
            home = InMemoryHomeFileSystem(
                homePath: "/home/\(user)", quotaBytes: account.diskQuotaBytes, now: { clock.unixSeconds },
                diskFull: diskFull)
        }
        let shared = LockedHomeFileSystem(home)
        // Two first uses may race live: the first home stored stays, the other is dropped unused.
        return homes.withLock { homes in
            if let first = homes[user] { return first }
            homes[user] = shared
            return shared
        }
    }

    /// The user's home if it is open already: a lookup, never disk I/O.
    func openHome(of user: String) -> (any HomeFileSystem)? {
        homes.withLock { $0[user] }
    }

    /// The words of a command line as the host's shell splits them (for scp's own command line).
    func words(of command: String, user: String) throws -> [String] {
        try ShellParser.parse(command, home: "/home/\(user)")
    }

    /// Runs one command line for a connection whose channel is on `eventLoop`: its file work on the blocking threads,
    /// its spooler step on the home loop, the outcome back on `eventLoop`. Under simulation all of it at once, inline,
    /// in the order a single call would take.
    func run(_ command: String, as user: String, answerOn eventLoop: any EventLoop) -> EventLoopFuture<CommandOutcome> {
        let now = self.now
        let host = self.host!
        let node = self.node
        if openHome(of: user) != nil, UnixHost.touchesNoFiles(command, home: "/home/\(user)") {
            // lpq, echo, …: nothing for the blocking threads, so both steps on the home loop, one hop fewer.
            return node.onHome { self.finish(host.prepare(command, as: user, now: now, faults: { node.fault($0) })) }
                .hop(to: eventLoop)
        }
        return node.blocking { host.prepare(command, as: user, now: now, faults: { node.fault($0) }) }
            .map { prepared in self.finish(prepared) }
            .hop(to: eventLoop)
    }

    /// Runs one command line on the home loop, both steps at once (the operators' `run`).
    func run(_ command: String, as user: String) -> CommandOutcome {
        finish(host.prepare(command, as: user, now: now, faults: { self.node.fault($0) }))
    }

    /// A command's spooler step and its report, on the home loop.
    private func finish(_ prepared: PreparedCommand) -> CommandOutcome {
        let outcome = host.finish(prepared, faults: { self.node.fault($0) })
        report(outcome.events)
        scheduleSpooler()
        return outcome
    }

    func report(_ events: [HostEvent]) {
        for event in events { node.trace(event.name, event.pairs) }
    }

    /// Arms one timer for the spooler's next event (a job finishing), replacing the previous one.
    func scheduleSpooler() {
        spoolerTimer?.cancel()
        spoolerTimer = nil
        guard let due = host.spooler.nextEventTime else { return }
        let delay = max(.zero, due - now)
        spoolerTimer = node.schedule(in: .nanoseconds(delay.nanosecondsClamped)) { [weak self] in
            guard let self else { return }
            self.report(self.host.spooler.advance(to: self.now, faults: { self.node.fault($0) }))
            self.scheduleSpooler()
        }
    }

    func stop() {
        spoolerTimer?.cancel()
        spoolerTimer = nil
    }

    // MARK: The account directory (what mysoc asks)

    /// `POST /directory/quota` with the site's bearer token and `user=…&password=…`: the remaining quota (200,
    /// `realm\tunix|nusnet` then `KIND\tVALUE` lines), or 401 for wrong credentials; 403 without the token.
    func answerDirectory(_ request: HTTPServerRequest) async -> HTTPResponse {
        guard request.method == .POST, request.path == "/directory/quota" else {
            // The URL serve prints: say what is here rather than 404.
            let what = "the account directory answers POST /directory/quota (the site's bearer token, user=…&password=…)"
            return .text(request.method == .GET && request.path == "/" ? .ok : .notFound, what)
        }
        guard case .success(let token) = BearerToken.parse(request.headers.first(name: "Authorization")),
            secretsMatch(token, configuration.directoryToken)
        else {
            node.trace("directory-refused", [("reason", "wrong or missing token")])
            return .text(.forbidden, "the directory answers only the sites it knows (Authorization: Bearer <token>)")
        }
        var fields: [String: String] = [:]
        for pair in request.text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 2, fields[parts[0]] == nil else { continue }
            fields[parts[0]] = parts[1].replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? parts[1]
        }
        guard let user = fields["user"], let password = fields["password"] else {
            return .text(.badRequest, "expected user=…&password=… (form-encoded)")
        }
        guard let (account, realm) = host.accounts.authenticateQuota(user: user, password: password) else {
            node.trace("directory-login", [("user", user), ("outcome", "refused")])
            return .text(.unauthorized, "wrong credentials")
        }
        node.trace("directory-login", [("user", user), ("realm", realm)])
        let lines = ["realm\t\(realm)"] + host.accounts.quota(of: account.user).map { "\($0.kind.rawValue)\t\($0.value)" }
        return .text(.ok, lines.joined(separator: "\n"))
    }
}

extension PlantedBug {
    /// The spooler prints a job when the owner has any quota left, not enough for the job: the quota goes negative.
    public static let sunfireQuotaAnyLeft = PlantedBug("sunfire.quota-any-left")
}
