/// The print quota kinds the quota page lists, in its order.
public enum QuotaKind: String, CaseIterable, Sendable {
    case postScript = "PS-printer"
    case colorPostScript = "Color-PS-printer"
    case colorA0Coated = "Color-A0-printer-Coated"
    case colorA0Glossy = "Color-A0-printer-Glossy"
    case colorA1 = "Color-A1-printer"
}

/// A SoC Unix account, with the NUSNET account that maps to the same person (a second credential realm).
public struct UnixAccount: Sendable, Equatable {
    public var user: String
    public var password: String
    public var nusnetID: String?
    public var nusnetPassword: String?
    public var diskQuotaBytes: Int64
    public var printQuota: [QuotaKind: Int]

    public init(
        user: String, password: String, nusnetID: String? = nil, nusnetPassword: String? = nil,
        diskQuotaBytes: Int64 = 200_000_000, printQuota: [QuotaKind: Int] = [.postScript: 100]
    ) {
        self.user = user
        self.password = password
        self.nusnetID = nusnetID
        self.nusnetPassword = nusnetPassword
        self.diskQuotaBytes = diskQuotaBytes
        self.printQuota = printQuota
    }

    /// The demo accounts: `demo` (NUSNET `e0123456`) and `alice`, for isolation.
    public static let demo: [UnixAccount] = [
        UnixAccount(user: "demo", password: "demo-password", nusnetID: "e0123456", nusnetPassword: "nusnet-password"),
        UnixAccount(user: "alice", password: "alice-password", nusnetID: "e0765432", nusnetPassword: "alice-nusnet"),
    ]
}

/// The SoC account directory: Unix logins for SSH, both realms for the quota site, and print quotas.
///
/// Confined to the host's event loop.
public final class AccountDirectory: @unchecked Sendable {
    // @unchecked Sendable: used only on the host's event loop.
    private var accounts: [UnixAccount]

    /// A planted bug's switch (`workbench swarm --planted sunfire.quota-any-left`; the actor sets it from its node,
    /// false in every normal run): a job is charged whenever some quota is left, enough for it or not.
    public var chargesWhileAnyLeft = false

    public init(_ accounts: [UnixAccount]) { self.accounts = accounts }

    public var all: [UnixAccount] { accounts }

    public func account(_ user: String) -> UnixAccount? { accounts.first { $0.user == user } }

    /// SSH logins: Unix credentials only — NUSNET ones are refused here ("Can get quota but cannot print?").
    public func authenticateUnix(user: String, password: String) -> Bool {
        guard let account = account(user) else {
            // Compare anyway, so an unknown user costs the same time as a wrong password.
            _ = Self.equal(password, "x")
            return false
        }
        return Self.equal(password, account.password)
    }

    /// The quota site's login: a Unix account, or the NUSNET account of one. Returns the account and the realm.
    public func authenticateQuota(user: String, password: String) -> (account: UnixAccount, realm: String)? {
        if authenticateUnix(user: user, password: password), let account = account(user) { return (account, "unix") }
        if let account = accounts.first(where: { $0.nusnetID == user }), let expected = account.nusnetPassword,
            Self.equal(password, expected)
        {
            return (account, "nusnet")
        }
        return nil
    }

    /// The user's remaining quota of every kind, in the page's order.
    public func quota(of user: String) -> [(kind: QuotaKind, value: Int)] {
        let quota = account(user)?.printQuota ?? [:]
        return QuotaKind.allCases.map { ($0, quota[$0] ?? 0) }
    }

    public func setQuota(_ user: String, _ kind: QuotaKind, _ value: Int) {
        guard let index = accounts.firstIndex(where: { $0.user == user }) else { return }
        accounts[index].printQuota[kind] = max(0, value)
    }

    /// Takes `sheets` from the user's PostScript quota; false (and nothing taken) when not enough is left.
    public func charge(_ user: String, sheets: Int) -> Bool {
        guard let index = accounts.firstIndex(where: { $0.user == user }) else { return false }
        let left = accounts[index].printQuota[.postScript] ?? 0
        guard sheets <= left || (chargesWhileAnyLeft && left > 0) else { return false }
        accounts[index].printQuota[.postScript] = left - sheets
        return true
    }

    /// Constant-time comparison of two secrets' bytes (time depends on the length only).
    static func equal(_ a: String, _ b: String) -> Bool {
        let x = Array(a.utf8)
        let y = Array(b.utf8)
        var difference = UInt8(x.count == y.count ? 0 : 1)
        for index in 0..<max(x.count, y.count) {
            difference |= (index < x.count ? x[index] : 0) ^ (index < y.count ? y[index] : 0)
        }
        return difference == 0
    }
}
