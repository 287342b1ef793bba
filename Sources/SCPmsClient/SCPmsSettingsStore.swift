import Synchronization

/// What the session manager keeps across launches of the app: the registration and the credentials.
public struct SCPmsStoredSettings: Sendable, Equatable {
    public var applicationConnectionId: String?
    public var user: String?
    public var password: String?

    public init(applicationConnectionId: String? = nil, user: String? = nil, password: String? = nil) {
        self.applicationConnectionId = applicationConnectionId
        self.user = user
        self.password = password
    }
}

/// Where the stored settings live. An app would use the Keychain; a scenario keeps one store across a
/// "relaunch" (a new session manager given the same store) to model what survives the app's restart.
///
/// The original session manager asked its delegate for the X-SMP-APPCID instead; a store keeps the id, the credentials and the
/// re-registration in one place the session manager controls.
public protocol SCPmsSettingsStore: Sendable {
    func load() -> SCPmsStoredSettings
    func save(_ settings: SCPmsStoredSettings)
}

/// Settings kept in memory (for as long as the store object lives).
public final class InMemorySCPmsSettingsStore: SCPmsSettingsStore {
    private let settings: Mutex<SCPmsStoredSettings>

    public init(_ initial: SCPmsStoredSettings = SCPmsStoredSettings()) { settings = Mutex(initial) }

    public func load() -> SCPmsStoredSettings { settings.withLock { $0 } }
    public func save(_ settings: SCPmsStoredSettings) { self.settings.withLock { $0 = settings } }
}
