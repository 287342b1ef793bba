import Synchronization

/// What the session manager keeps across launches of the app: the registration and the credentials.
public struct SCPmsStoredSettings: Sendable, Equatable {
    /// The registration's id (`X-SMP-APPCID`); nil before the first registration, and cleared when
    /// the server refuses it and the device registers again.
    public var applicationConnectionId: String?
    /// The user of the last started session, whose credentials answer Basic challenges; nil until one starts.
    public var user: String?
    /// That user's password, kept alongside it.
    public var password: String?

    /// Settings with what is already known; empty by default, as on a first launch.
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
    /// The settings as last saved; empty ones when nothing was.
    func load() -> SCPmsStoredSettings
    /// Replaces the stored settings; a later ``SCPmsSettingsStore/load()`` (by any session manager) sees them.
    func save(_ settings: SCPmsStoredSettings)
}

/// Settings kept in memory (for as long as the store object lives).
public final class InMemorySCPmsSettingsStore: SCPmsSettingsStore {
    private let settings: Mutex<SCPmsStoredSettings>

    /// A store holding `initial`; empty by default, as on a first launch.
    public init(_ initial: SCPmsStoredSettings = SCPmsStoredSettings()) { settings = Mutex(initial) }

    /// The settings as last saved in memory.
    public func load() -> SCPmsStoredSettings { settings.withLock { $0 } }
    /// Replaces the settings in memory; they last as long as this store object.
    public func save(_ settings: SCPmsStoredSettings) { self.settings.withLock { $0 = settings } }
}
