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
    public enum Kind: String, Sendable {
        case refused = "connection refused"
        case unknownHost = "unknown host"
        case timedOut = "connection timed out"
        case reset = "connection reset by peer"
        case addressInUse = "address already in use"
        case closed = "connection closed"
    }

    public let kind: Kind
    public let detail: String

    public init(_ kind: Kind, _ detail: String) {
        self.kind = kind
        self.detail = detail
    }

    public var description: String { "\(kind.rawValue): \(detail)" }
}
