import SunfireHost

/// What Sunfire's operators can do — the `sunfire` directive's knobs: printer states, Samba jobs, quotas, the
/// whitelist, and a look at the queues and homes. Handed out by ``Sunfire/administer(_:)`` on the host's loop.
public struct SunfireAdministration {
    let core: SunfireCore

    /// Every printer, custom ones first, as the app lists them.
    public var printers: [String] { core.host.spooler.printers }

    public func setPrinter(_ printer: String, _ state: PrinterState) throws(SunfireAdministrationError) {
        guard core.host.spooler.state(of: printer) != nil else { throw .unknownPrinter(printer) }
        core.report(core.host.spooler.setState(state, of: printer, now: core.now))
        core.scheduleSpooler()
    }

    public func addSambaJob(owner: String, printer: String, name: String, pages: Int) throws(SunfireAdministrationError) {
        guard core.host.spooler.state(of: printer) != nil else { throw .unknownPrinter(printer) }
        guard core.host.accounts.account(owner) != nil else { throw .unknownUser(owner) }
        core.report(core.host.spooler.addSambaJob(owner: owner, printer: printer, name: name, pages: pages, now: core.now))
        core.scheduleSpooler()
    }

    public func setQuota(user: String, _ kind: QuotaKind, _ value: Int) throws(SunfireAdministrationError) {
        guard core.host.accounts.account(user) != nil else { throw .unknownUser(user) }
        core.host.accounts.setQuota(user, kind, value)
        core.node.trace("quota-set", [("user", user), ("kind", kind.rawValue), ("value", String(value))])
    }

    public func quota(of user: String) -> [(kind: QuotaKind, value: Int)] { core.host.accounts.quota(of: user) }

    public func setWhitelist(_ ranges: [AddressRange]) { core.setWhitelist(ranges) }

    /// `lpq -P printer` as the host prints it.
    public func queue(_ printer: String) throws(SunfireAdministrationError) -> String {
        guard core.host.spooler.state(of: printer) != nil else { throw .unknownPrinter(printer) }
        return core.host.spooler.lpq(printer)
    }

    /// The files under a user's home (relative paths, sorted), for scenarios that check what was left behind.
    public func files(of user: String) throws -> [String] {
        let home = try core.fileSystem(for: user)
        var found: [String] = []
        func walk(_ path: String) throws {
            for name in try home.contentsOfDirectory(path) {
                let child = path.isEmpty ? name : "\(path)/\(name)"
                if try home.attributes(of: child).kind == .directory { try walk(child) } else { found.append(child) }
            }
        }
        try walk("")
        return found
    }

    /// Runs a command line on the host as `user`, as the user's SSH exec would (without the SSH).
    public func run(_ command: String, as user: String) throws(SunfireAdministrationError) -> CommandOutcome {
        guard core.host.accounts.account(user) != nil else { throw .unknownUser(user) }
        return core.run(command, as: user)
    }
}

public enum SunfireAdministrationError: Error, CustomStringConvertible, Sendable {
    case unknownPrinter(String)
    case unknownUser(String)

    public var description: String {
        switch self {
        case .unknownPrinter(let name): "no printer \(name) on this host"
        case .unknownUser(let name): "no user \(name) on this host"
        }
    }
}
