import NIOCore

/// Byte-stream connections between named hosts: the one network API both wirings implement.
public protocol Network: Sendable {
    /// Opens a connection from node `from` to `host:port`.
    ///
    /// The future fails with ``WireError`` (`.refused`, `.unknownHost`, `.timedOut`) or a NIO error.
    func connect(
        from: String, host: String, port: Int, timeout: TimeAmount, on eventLoop: any EventLoop,
        initializer: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) -> EventLoopFuture<any Channel>

    /// Accepts connections to `port` of node `as`, running `childInitializer` on each accepted channel, on the
    /// loops `connections` says.
    func listen(
        as host: String, port: Int, on eventLoop: any EventLoop, connections: ConnectionLoops,
        childInitializer: @escaping @Sendable (any Channel) -> EventLoopFuture<Void>
    ) -> EventLoopFuture<any Listener>

    /// Where a socket of this machine reaches `host:port` (a served actor's loopback port, an outside server a target
    /// names), for a client that opens its own sockets (URLSession); nil where no machine address stands behind the
    /// name (the simulated network).
    func machineAddress(host: String, port: Int) -> (host: String, port: Int)?
}

extension Network {
    public func machineAddress(host: String, port: Int) -> (host: String, port: Int)? { nil }
}

/// A bound listening endpoint.
public protocol Listener: Sendable {
    /// The host name clients use to reach it (a node name, or `127.0.0.1` live).
    var host: String { get }
    /// The port actually bound (differs from the requested one when 0 was asked for).
    var port: Int { get }
    /// Stops accepting; established connections stay up.
    func close() -> EventLoopFuture<Void>
}

/// Connection-level failures, worded like the socket errors a real client would see.
public struct WireError: Error, Hashable, CustomStringConvertible, Sendable {
    /// Which socket failure it was; the raw value is how the error's `description` words it.
    public enum Kind: String, Sendable {
        /// Nothing listens at the host's port (ECONNREFUSED).
        case refused = "connection refused"
        /// The host name names no node the wire knows and does not resolve, or is not a usable address.
        case unknownHost = "unknown host"
        /// The connection was not established within its time-out (its SYNs lost in a partition, say).
        case timedOut = "connection timed out"
        /// The peer aborted the connection (ECONNRESET), e.g. a server whose channel initializer failed.
        case reset = "connection reset by peer"
        /// A listener already holds the address and port asked for (EADDRINUSE).
        case addressInUse = "address already in use"
        /// The peer closed the connection before the exchange was over.
        case closed = "connection closed"
    }

    /// Which failure it was, for callers that tell a refusal from a time-out or an unknown host.
    public let kind: Kind
    /// What the failure concerns: usually `host:port`, the host alone when it is unknown, or a short sentence.
    public let detail: String

    /// A failure of `kind` about `detail`; its description reads e.g. `connection refused: mig:631`.
    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    /// The failure as a message: the kind's words, then the detail, e.g. `connection refused: mig:631`.
    public var description: String { "\(kind.rawValue): \(detail)" }
}
