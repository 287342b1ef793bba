import Scenario

/// TLS identities an app holds through one system of a scenario (a credential the phone's vault keeps for it),
/// for the clients of other systems to present: the holder registers each app's source here, a client asks for
/// the app by name. Neither imports the other, so either system can leave the catalogue without the other's
/// directives failing to compile.
package enum HeldIdentities {
    /// An app's identity by the serial number and tag (`Authentication`, `Signing`…) of the credential it holds.
    package typealias Source =
        @Sendable (_ serialNumber: String, _ tag: String) async throws(HeldIdentityUnavailable)
        -> (certificate: [UInt8], privateKey: [UInt8])

    /// From now on in this scenario, `app`'s identities come from `source` (replacing an earlier one).
    package static func register(app: String, in context: ScenarioContext, _ source: @escaping Source) {
        context.setState(Self.state, Optional(source), for: app)
    }

    /// Where `app`'s identities come from, or nil when nothing in the scenario holds any for it yet.
    package static func source(of app: String, in context: ScenarioContext) -> Source? {
        context.state(Self.state, for: app) { nil }
    }

    /// Each app's source, by the app's name.
    private static let state = RunState<Source?>("held-identities")
}

/// An app holds no TLS identity for a credential: it never had one, or its holder does not keep it.
package struct HeldIdentityUnavailable: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}
