import Scenario

/// The account an actor kind signs clients in with by default, put where a recording's credentials were redacted.
package struct DemoAccount: Sendable {
    package let user: String
    package let password: String

    package init(user: String, password: String) {
        self.user = user
        self.password = password
    }
}

extension ScenarioContext {
    /// The account a client of actor kind `kind` signs in with: its target's (`--target KIND=URL`) where the line gives
    /// the actor's demo account `demo`, which a real server does not have; else the line's own (a wrong password stays
    /// wrong).
    package func signIn(_ kind: String, demo: DemoAccount?, user: String, password: String) -> (user: String, password: String) {
        guard let target = targets[kind], let demo else { return (user, password) }
        return target.signIn(user: user, password: password, demo: (demo.user, demo.password))
    }
}
