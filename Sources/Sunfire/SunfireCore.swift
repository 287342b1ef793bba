import Foundation
import NIOCore
import SunfireHost
import Wire
import WireHTTP

/// Sunfire's state, confined to its node's event loop: the Unix host, the users' homes, and the spooler's timer.
final class SunfireCore: @unchecked Sendable {
    // @unchecked Sendable: every use is on `node.eventLoop` (NIO handlers, scheduled tasks, `administer`).

    let node: Node
    let configuration: Sunfire.Configuration
    private(set) var host: UnixHost!
    private var homes: [String: any HomeFileSystem] = [:]
    private var spoolerTimer: Scheduled<Void>?
    private var whitelist: [AddressRange]

    init(node: Node, configuration: Sunfire.Configuration) throws {
        self.node = node
        self.configuration = configuration
        self.whitelist = configuration.whitelist
        for point in UnixHost.faultPoints { node.faults.declare(point) }
        host = UnixHost(configuration: configuration.host) { [unowned self] user in try self.fileSystem(for: user) }
        host.accounts.chargesWhileAnyLeft = node.planted(.sunfireQuotaAnyLeft)
    }

    /// Host time: the node's monotonic clock.
    var now: Duration { node.clock.now.uptime }

    var currentWhitelist: [AddressRange] { whitelist }
    func setWhitelist(_ ranges: [AddressRange]) {
        whitelist = ranges
        node.trace("whitelist", [("ranges", ranges.map(\.description).joined(separator: ","))])
    }

    func authenticate(user: String, password: String) -> Bool {
        host.accounts.authenticateUnix(user: user, password: password)
    }

    /// The user's home, made on first use (in memory, or a folder under `homesDirectory`).
    func fileSystem(for user: String) throws -> any HomeFileSystem {
        if let home = homes[user] { return home }
        guard let account = host?.accounts.account(user) ?? configuration.host.accounts.first(where: { $0.user == user }) else {
            throw FileSystemError(.permissionDenied, user)
        }
        let node = self.node
        let diskFull: @Sendable () -> Bool = { node.fault(UnixHost.Fault.diskFull) }
        let home: any HomeFileSystem
        if let directory = configuration.homesDirectory {
            home = try DiskHomeFileSystem(
                root: "\(directory)/\(user)", homePath: "/home/\(user)", quotaBytes: account.diskQuotaBytes,
                diskFull: diskFull)
        } else {
            let clock = node.clock
            home = InMemoryHomeFileSystem(
                homePath: "/home/\(user)", quotaBytes: account.diskQuotaBytes, now: { clock.unixSeconds },
                diskFull: diskFull)
        }
        homes[user] = home
        return home
    }

    /// The words of a command line as the host's shell splits them (for scp's own command line).
    func words(of command: String, user: String) throws -> [String] {
        try ShellParser.parse(command, home: "/home/\(user)")
    }

    /// Runs one command line and reports what the host did.
    func run(_ command: String, as user: String) -> CommandOutcome {
        let outcome = host.run(command, as: user, now: now, faults: { self.node.fault($0) })
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
        spoolerTimer = node.eventLoop.scheduleTask(in: .nanoseconds(delay.nanosecondsClamped)) { [weak self] in
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
            return .text(.notFound, "the account directory answers POST /directory/quota")
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
