import Kernel
import NIOCore
import Wire

// Plumbing shared by the protocol-over-simulated-wire tests (TLS, SSH): a settle-once result, a handler that
// turns connection errors into that result, and small kernel conveniences.

/// The result of one client exchange, settled once: the first success or error wins, later ones are ignored.
///
/// Several things can end an exchange (the protocol handler, a connection error, the channel going inactive);
/// whichever comes first is what the caller sees. Confined to the simulation loop, like the handlers using it.
final class ExchangeOutcome<Value: Sendable> {
    private var promise: EventLoopPromise<Value>?

    init(_ promise: EventLoopPromise<Value>) { self.promise = promise }

    var isSettled: Bool { promise == nil }

    func succeed(_ value: Value) {
        promise?.succeed(value)
        promise = nil
    }

    func fail(_ error: any Error) {
        promise?.fail(error)
        promise = nil
    }
}

/// Sits last in a connection's pipeline: traces the first error, fails the exchange with it, closes the channel.
///
/// Without it, an error nobody handles (a reset, a failed auth step) would be dropped at the pipeline's tail and
/// the exchange would wait for ever.
final class ConnectionErrorHandler<Value: Sendable>: ChannelInboundHandler {
    typealias InboundIn = Any

    private let node: Node
    private let role: String
    private let outcome: ExchangeOutcome<Value>?
    private var traced = false

    init(node: Node, role: String, outcome: ExchangeOutcome<Value>? = nil) {
        self.node = node
        self.role = role
        self.outcome = outcome
    }

    func errorCaught(context: ChannelHandlerContext, error: any Error) {
        if !traced {
            traced = true
            node.trace("connection-error", [("role", role), ("error", traceText(error))])
        }
        outcome?.fail(error)
        context.close(promise: nil)
    }

    func channelInactive(context: ChannelHandlerContext) {
        outcome?.fail(WireError(.closed, "connection closed before the exchange finished"))
        context.fireChannelInactive()
    }
}

/// An error as trace text: its description, which for NIO, NIOSSL and NIOSSH errors holds no addresses or times.
func traceText(_ error: any Error) -> String {
    String(describing: error)
}

extension Kernel {
    /// Sets the same conditions on both directions between `a` and `b`.
    func setConditions(between a: String, and b: String, _ conditions: LinkConditions) {
        network.setConditions(from: a, to: b, conditions)
        network.setConditions(from: b, to: a, conditions)
    }

    /// Cuts (or heals) both directions between `a` and `b`.
    func setPartitioned(between a: String, and b: String, _ partitioned: Bool) {
        network.setPartitioned(from: a, to: b, partitioned)
        network.setPartitioned(from: b, to: a, partitioned)
    }

    /// Drives the loop until a trace event matches `predicate`, at most `timeout` of virtual time.
    ///
    /// Lets a test act at a precise protocol moment (e.g. reset right after the handshake) without guessing times.
    /// - returns: whether the event was seen.
    @discardableResult
    func drive(until predicate: (Trace.Event) -> Bool, timeout: Duration = .seconds(60)) -> Bool {
        let limit = loop.nanoseconds + timeout.nanosecondsValue
        loop.run(until: limit, while: { !self.trace.all.contains(where: predicate) })
        return trace.all.contains(where: predicate)
    }
}
