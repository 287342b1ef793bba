import Foundation
import Wire

/// A system's share of `workbench bench load`: the operations its clients go round against one `workbench serve`,
/// with the help text that says what each one is. ``LoadBench`` only drives them (windows, tallies, output).
package struct LoadBenchPart: Sendable {
    /// The system's operations, in the order a client goes round them.
    package let operations: [LoadOperation]
    /// Set-up some operations need first, which is not an operation itself (for the help text).
    package let setUps: [LoadSetUp]
    /// Options serve runs the system's actors with during a load of so many clients (`ACTOR.OPTION` → value), each
    /// with its reason in the help text.
    package let serveOptions: @Sendable (_ clients: Int) -> [LoadServeOption]
    /// Reads from what serve announced where the system's clients go (throwing when something is missing), and
    /// returns what makes client `index`'s session on its node.
    package let connect: @Sendable (ServeAnnouncement) throws -> @Sendable (_ index: Int, _ node: Node) throws -> any LoadSession

    package init(
        operations: [LoadOperation], setUps: [LoadSetUp] = [], serveOptions: @escaping @Sendable (_ clients: Int) -> [LoadServeOption] = { _ in [] },
        connect: @escaping @Sendable (ServeAnnouncement) throws -> @Sendable (_ index: Int, _ node: Node) throws -> any LoadSession
    ) {
        self.operations = operations
        self.setUps = setUps
        self.serveOptions = serveOptions
        self.connect = connect
    }
}

/// An option serve runs an actor with during the load, and why (for `bench load --help`).
package struct LoadServeOption: Sendable {
    package let option: String
    package let value: String
    package let why: String

    package init(option: String, value: String, why: String) {
        self.option = option
        self.value = value
        self.why = why
    }
}

/// One kind of operation: its name in the figures and what it does, for `bench load --help`.
package struct LoadOperation: Sendable {
    package let name: String
    package let help: String

    package init(_ name: String, _ help: String) {
        self.name = name
        self.help = help
    }
}

/// Set-up a client does before some operations (a login, a first registration): untimed, and its failures count
/// as errors of `countsAs`.
package struct LoadSetUp: Sendable {
    package let what: String
    package let countsAs: String

    package init(what: String, countsAs: String) {
        self.what = what
        self.countsAs = countsAs
    }
}

/// One client's connections and state for one system's operations, used by that client's task alone.
package protocol LoadSession: Sendable {
    /// Does the set-up `operation` needs, if it is not done yet; returns the failure (and the operation it counts
    /// against) when it could not be done.
    mutating func prepare(for operation: String) async -> LoadSetUpFailure?
    /// One operation, as the help text describes it; any answer other than the expected one throws.
    mutating func perform(_ operation: String) async throws
    /// Closes what the session keeps open.
    func close() async
}

extension LoadSession {
    package func prepare(for operation: String) async -> LoadSetUpFailure? { nil }
    package func close() async {}
}

package struct LoadSetUpFailure: Error {
    package let operation: String
    package let text: String

    package init(operation: String, text: String) {
        self.operation = operation
        self.text = text
    }
}

extension ServeAnnouncement {
    /// The first `scheme://` URL `kind` announced, with a host and a port; throws naming what is missing.
    package func requiredURL(_ kind: String, _ scheme: String) throws -> URLComponents {
        guard let text = url(kind, scheme: scheme), let url = URLComponents(string: text), url.host != nil, url.port != nil else {
            throw WorkbenchError("serve announced no \(scheme):// URL for \(kind)")
        }
        return url
    }

    /// The rest of `kind`'s note that starts with `word`; throws when there is none.
    package func requiredNote(_ kind: String, _ word: String) throws -> String {
        guard let text = note(kind, word) else { throw WorkbenchError("serve announced no '\(word)' note for \(kind)") }
        return text
    }
}
