import NIOCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The live wire's links: the conditions a scenario sets between a client and a served actor (`link`, `partition`,
/// `hold`, `reset`), applied to real connections by a `LinkHandler` at the front of each accepted connection, in
/// process (no root, no tc/netem), to open and new connections alike.
///
/// Nodes, live: each served actor is the node it runs on (`mig`, `scpms`, …); a client is the node named by its address
/// (`127.0.0.1`), and `phone` stands for every client a line does not name. With nothing set, a connection's bytes pass
/// the handler after one atomic load.
public final class LiveLinks: LinkControl {
    struct State: Equatable {
        var conditions = LinkConditions()
        var partitioned = false
        var held = false
        var resetAfterBytes: Int?
        /// Traffic waits (a partition or a hold).
        var blocked: Bool { partitioned || held }
        var isDefault: Bool { self == State() }
    }

    /// The name a line gives every client it does not name by address.
    public static let everyClient = "phone"

    private let states = Mutex<[String: State]>([:])
    /// How many directions are not at their defaults: 0 lets every handler pass bytes straight through.
    private let changed = Atomic<Int>(0)
    private let open = Mutex<[Int: LinkHandler]>([:])
    /// The node each named client address stands for (`workbench run --live`'s own clients).
    private let names = Mutex<[String: String]>([:])
    private let nextID = Atomic<Int>(1)
    let random: RandomStream

    /// Links with every direction at its defaults, nothing set yet.
    ///
    /// - parameter random: the stream latency distributions draw from.
    public init(random: RandomStream) { self.random = random }

    /// Whether any direction has a condition set.
    var anyChanged: Bool { changed.load(ordering: .relaxed) > 0 }

    private func key(_ from: String, _ to: String) -> String { from + "\u{1F}" + to }

    /// The state a connection's direction obeys: its client's address first, then `phone`.
    func state(client: String, actor: String, inbound: Bool) -> State {
        states.withLock { all in
            let (own, every) =
                inbound
                ? (key(client, actor), key(Self.everyClient, actor))
                : (key(actor, client), key(actor, Self.everyClient))
            return all[own] ?? all[every] ?? State()
        }
    }

    private func update(_ from: String, _ to: String, _ change: (inout State) -> Void) {
        let wasChanged: Bool
        let isChanged: Bool
        (wasChanged, isChanged) = states.withLock { all in
            var state = all[key(from, to)] ?? State()
            let before = !state.isDefault
            change(&state)
            all[key(from, to)] = state.isDefault ? nil : state
            return (before, !state.isDefault)
        }
        if wasChanged != isChanged { changed.add(isChanged ? 1 : -1, ordering: .relaxed) }
        // Waiting traffic flows, and a new latency applies, on the connections open now.
        for handler in open.withLock({ Array($0.values) }) where handler.concerns(from, to) { handler.conditionsChanged() }
    }

    // MARK: LinkControl

    public func conditions(from: String, to: String) -> LinkConditions {
        states.withLock { $0[key(from, to)]?.conditions } ?? LinkConditions()
    }

    public func setConditions(from: String, to: String, _ conditions: LinkConditions) {
        update(from, to) { $0.conditions = conditions }
    }

    public func setPartitioned(from: String, to: String, _ partitioned: Bool) {
        update(from, to) { $0.partitioned = partitioned }
    }

    public func setHeld(from: String, to: String, _ held: Bool) {
        update(from, to) { $0.held = held }
    }

    public func resetAfter(bytes: Int, from: String, to: String) {
        update(from, to) { $0.resetAfterBytes = bytes }
    }

    /// Disarms the reset of `from` → `to` once it has reset a connection (as the simulated network does).
    func disarmReset(from: String, to: String) {
        update(from, to) { $0.resetAfterBytes = nil }
    }

    @discardableResult
    public func resetConnections(between a: String, and b: String) -> Int {
        let victims = open.withLock { Array($0.values) }.filter { $0.concerns(a, b) || $0.concerns(b, a) }
        for handler in victims { handler.reset() }
        return victims.count
    }

    public var connectionSummaries: [String] {
        open.withLock { all in all.keys.sorted().compactMap { all[$0]?.summary } }
    }

    public var linkSummaries: [String] {
        states.withLock { all in
            all.keys.sorted().compactMap { linkKey in
                guard let state = all[linkKey] else { return nil }
                let ends = linkKey.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
                return LinkConditions.summary(
                    from: ends[0], to: ends[1], state.conditions, partitioned: state.partitioned, held: state.held,
                    resetAfterBytes: state.resetAfterBytes)
            }
        }
    }

    /// Ends every fault on every path at once (`after heal`): every direction back to its defaults, so waiting
    /// traffic flows. Returns how many directions it changed.
    @discardableResult
    public func healAll() -> Int {
        let changed = states.withLock { all in all.keys.sorted() }
        for linkKey in changed {
            let ends = linkKey.split(separator: "\u{1F}", omittingEmptySubsequences: false).map(String.init)
            update(ends[0], ends[1]) { $0 = State() }
        }
        return changed.count
    }

    // MARK: Connections

    /// Whether the path between client node `client` and `actor` is partitioned in either direction.
    func isPartitioned(_ client: String, _ actor: String) -> Bool {
        guard anyChanged else { return false }
        return state(client: client, actor: actor, inbound: true).partitioned || state(client: client, actor: actor, inbound: false).partitioned
    }

    /// A connection's handshake time between client node `client` and `actor`: one latency draw each way.
    func handshakeNanoseconds(client: String, actor: String) -> Int64 {
        guard anyChanged else { return 0 }
        return state(client: client, actor: actor, inbound: true).conditions.latency.sample(random)
            + state(client: client, actor: actor, inbound: false).conditions.latency.sample(random)
    }

    /// Names the client connecting from `address`: its connections obey the links set for `node`.
    func name(address: String, node: String) { names.withLock { $0[address] = node } }

    /// The handler to put first on a connection accepted for `actor` from `client` (its address, or the node it names).
    func handler(client: String, clientPort: Int, actor: String, port: Int) -> LinkHandler {
        let client = names.withLock { $0[client] } ?? client
        return LinkHandler(
            links: self, id: nextID.add(1, ordering: .relaxed).oldValue, client: client, clientPort: clientPort, actor: actor, port: port)
    }

    func opened(_ handler: LinkHandler) { open.withLock { $0[handler.id] = handler } }
    func closed(_ handler: LinkHandler) { _ = open.withLock { $0.removeValue(forKey: handler.id) } }
}
