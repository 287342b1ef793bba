import Foundation

/// An outside server an actor kind's clients talk to instead of the actor (`--target KIND=URL`): a real server of the
/// system the kind simulates (``ActorKind/targetSchemes``). The run is on the live wire; connections the clients open to the kind's node go to
/// the server, and a line that names no URL uses the target's.
public struct Target: Sendable {
    /// The actor kind it stands in for.
    public let kind: String
    /// The node the kind's actor runs on: connections to it go to the server.
    public let node: String
    /// The URL as given, credentials included (never printed: see ``shown``); credentials from the environment
    /// (``credentialVariables(of:)``) are put into it when it has none.
    public let url: String
    public let host: String
    public let port: Int
    /// The account on the outside server: the URL's user and password, else the environment's.
    public let account: (user: String, password: String)?

    /// The environment variables that give a target's account when its URL has none
    /// (`WORKBENCH_TARGET_SCPMS_USER`, `…_PASSWORD`), so a password need not be on the command line.
    public static func credentialVariables(of kind: String) -> (user: String, password: String) {
        let prefix = "WORKBENCH_TARGET_" + kind.uppercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined()
        return (prefix + "_USER", prefix + "_PASSWORD")
    }

    /// Parses `KIND=URL` against the catalog, or says what is wrong.
    public init(
        _ text: String, catalog: [ActorKind], environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(TargetError) {
        let parts = text.split(separator: "=", maxSplits: 1).map(String.init)
        guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
            throw TargetError("'\(text)': expected SYSTEM=URL, e.g. \(Self.example(catalog))")
        }
        let (kind, url) = (parts[0], parts[1])
        guard let actorKind = catalog.first(where: { $0.name == kind && !$0.targetSchemes.isEmpty }) else {
            let known = catalog.filter { !$0.targetSchemes.isEmpty }.map(\.name)
            throw TargetError(
                "'\(kind)': no system takes a target by that name\(didYouMean(kind, among: known)); targets are taken for: "
                    + known.joined(separator: ", "))
        }
        let schemes = actorKind.targetSchemes
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(), let implied = schemes[scheme],
            let host = components.host, !host.isEmpty
        else {
            throw TargetError(
                "\(kind)=\(Self.shown(url)): expected a URL like \(schemes.keys.sorted().first ?? "ipp")://HOST[:PORT]/PATH (schemes: "
                    + schemes.keys.sorted().joined(separator: ", ") + ")")
        }
        guard components.port.map({ (1...65_535).contains($0) }) ?? true else {
            throw TargetError("\(kind)=\(Self.shown(url)): the port must be 1…65535")
        }
        var withAccount = components
        let variables = Self.credentialVariables(of: kind)
        if components.user == nil, let user = environment[variables.user], !user.isEmpty {
            withAccount.user = user
            withAccount.password = environment[variables.password]
        }
        let account = withAccount.user.map { (user: $0, password: withAccount.password ?? "") }
        (self.kind, self.node, self.host, self.port) = (kind, actorKind.defaultHost, host, components.port ?? implied)
        (self.url, self.account) = (withAccount.string ?? url, account)
    }

    /// The credentials a client signs in with: the target's account where the line gives the actor's demo account
    /// (which a real server does not have), else what the line gives — so a wrong password stays wrong.
    public func signIn(user: String, password: String, demo: (user: String, password: String)) -> (user: String, password: String) {
        guard let account, user == demo.user, password == demo.password else { return (user, password) }
        return account
    }

    /// The URL without its credentials, for clients that take the account separately.
    public var bareURL: String { Self.shown(url) }

    /// `KIND=URL` for the first kind of `catalog` that takes a target.
    public static func example(_ catalog: [ActorKind]) -> String {
        catalog.first { !$0.targetSchemes.isEmpty }.map { "\($0.name)=\($0.targetExample)" } ?? "SYSTEM=URL"
    }

    /// The URL without its credentials: what reports, traces and messages show.
    public var shown: String { Self.shown(url) }

    static func shown(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.user != nil || components.password != nil else { return url }
        components.user = nil
        components.password = nil
        return components.string ?? url
    }

    /// Why `statement` cannot run with `targets` standing in for their kinds' actors (it needs the actor's inside),
    /// or nil when it can.
    public static func problem(_ statement: Statement, targets: [Target]) -> ScenarioError? {
        for target in targets {
            for use in statement.names {
                let why: String? =
                    switch use.kind {
                    case .faultPoint where use.name.hasPrefix(target.kind + "."):
                        "its fault points are inside the workbench's actor; the target is \(target.shown)"
                    case .traceAuthor where use.name == target.node, .actorReference where use.name == target.kind:
                        "it reads or changes the actor's own trace or state; the target is an outside server (\(target.shown)): check what the client saw"
                    case .host where use.name == target.node && linkDirectives.contains(statement.directive):
                        "the live wire's link layer sits in front of the workbench's own actors; the target is \(target.shown)"
                    default: nil
                    }
                if let why {
                    return ScenarioError(
                        file: statement.file, line: statement.line, column: use.column,
                        message: "'\(statement.directive)' does not run with --target \(target.kind)=…: \(why)")
                }
            }
        }
        return nil
    }

    static let linkDirectives: Set<String> = ["link", "partition", "heal", "hold", "release", "reset"]
}

public struct TargetError: Error, CustomStringConvertible, Sendable {
    public let description: String
    init(_ description: String) { self.description = description }
}
