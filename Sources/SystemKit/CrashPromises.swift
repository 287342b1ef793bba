import Kernel

/// What durable actors promised before their nodes crashed, as the invariants that look at a restart read it from the
/// trace. An actor's acknowledgements (`key` → `value`: a job and its document's digest, a registration) since its node
/// last started become promises at the node's `crashed` when the actor running then keeps them durably, unless its disk
/// lied since (`disk.fsync-lie` fired: no store can keep a promise on such a disk). Nothing traced between a power cut
/// during a write and the crash counts: it never left the node. Each system's checker feeds it its own acknowledgements
/// and every event, and takes a node's promises once the actor restarted there is up, to look for them in its store.
public struct CrashPromises: Sendable {
    /// Node → key → value acknowledged since the node last started (and not withdrawn).
    private var acknowledged: [String: [String: String]] = [:]
    /// Node → what was acknowledged before its last crash by an actor that promised it would survive one.
    private var promised: [String: [String: String]] = [:]
    /// Node → whether the actor started there keeps its acknowledgements durably (noted when it starts).
    private var durable: [String: Bool] = [:]
    /// Nodes whose disk lied since their last crash.
    private var lied: Set<String> = []
    /// Nodes whose power was cut during a write and that have not crashed yet.
    private var cut: Set<String> = []

    public init() {}

    /// The actor on `node` acknowledged `key` with `value` (nothing after a power cut, whose answers never left).
    public mutating func acknowledge(_ key: String, _ value: String, on node: String) {
        guard !cut.contains(node) else { return }
        acknowledged[node, default: [:]][key] = value
    }

    /// `key` is no longer owed on `node` (its owner deleted it): neither acknowledged nor promised any more.
    public mutating func withdraw(_ key: String, on node: String) {
        acknowledged[node]?[key] = nil
        promised[node]?[key] = nil
    }

    /// The actor started on `node` keeps its acknowledgements durably, or not.
    public mutating func started(on node: String, durable: Bool) {
        self.durable[node] = durable
    }

    /// Follows the world's events that bear on every promise: a lying sync, a power cut, a crash.
    public mutating func observe(_ event: Trace.Event) {
        switch (event.actor, event.event) {
        case (_, "fault-fired") where event["point"] == Kernel.fsyncLieFault:
            lied.insert(event.actor)
        case (_, "power-cut") where event.actor == "scenario":
            if let node = event["node"] { cut.insert(node) }
        case (_, "crashed") where event.actor == "scenario":
            guard let node = event["node"] else { return }
            if durable[node] == true, !lied.contains(node) {
                promised[node, default: [:]].merge(acknowledged[node] ?? [:]) { _, later in later }
            }
            acknowledged[node] = nil
            lied.remove(node)
            cut.remove(node)
        default: break
        }
    }

    /// The nodes that crashed owing promises not yet handed out, in name order.
    public var owing: [String] { promised.keys.sorted() }

    /// The promises `node` owes, handed out once: the actor restarted there answers for them now (and for what it
    /// acknowledges from then on, at its own crash).
    public mutating func take(_ node: String) -> [String: String] {
        promised.removeValue(forKey: node) ?? [:]
    }
}
