/// What a scenario may change about the paths between nodes, in either wiring: the simulated network's links, or
/// the layer in front of each served actor's real connections (``LiveLinks``). `link`, `partition`, `heal`, `hold`,
/// `release` and `reset` are written once against it.
public protocol LinkControl: AnyObject, Sendable {
    /// The conditions of the direction `from` → `to`.
    func conditions(from: String, to: String) -> LinkConditions
    /// Sets the conditions of the direction `from` → `to`.
    func setConditions(from: String, to: String, _ conditions: LinkConditions)
    /// Cuts (or heals) the direction `from` → `to`: traffic waits, senders time out.
    func setPartitioned(from: String, to: String, _ partitioned: Bool)
    /// Holds (or releases) traffic on the direction `from` → `to`.
    func setHeld(from: String, to: String, _ held: Bool)
    /// Arms a reset of the connection that carries the `bytes`-th byte from `from` to `to` from now on.
    func resetAfter(bytes: Int, from: String, to: String)
    /// Resets every open connection between `a` and `b`; returns how many.
    @discardableResult func resetConnections(between a: String, and b: String) -> Int
    /// Open connections, one line each.
    var connectionSummaries: [String] { get }
    /// The directions whose state differs from the default, one line each (`show links`).
    var linkSummaries: [String] { get }
}

extension LinkConditions {
    /// One direction's state as `show links` prints it: `phone -> mig: latency 40ms, partitioned`.
    public static func summary(
        from: String, to: String, _ conditions: LinkConditions, partitioned: Bool, held: Bool, resetAfterBytes: Int?
    )
        -> String
    {
        var parts = [conditions.description]
        if partitioned { parts.append("partitioned") }
        if held { parts.append("held") }
        if let resetAfterBytes { parts.append("reset after \(resetAfterBytes) bytes") }
        return "\(from) -> \(to): " + parts.joined(separator: ", ")
    }
}
