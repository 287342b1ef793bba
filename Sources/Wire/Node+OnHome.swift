import NIOCore

extension Node {
    /// `body`'s result, computed on the node's own loop: at once when already there (always under simulation, so
    /// events keep the kernel's order), else queued to it.
    ///
    /// For handlers of connections on other loops (``ConnectionLoops/every``) that reach state confined to the
    /// node's loop; hop the answer back to the channel's loop.
    public func onHome<T: Sendable>(_ body: @escaping @Sendable () throws -> T) -> EventLoopFuture<T> {
        if eventLoop.inEventLoop { return eventLoop.makeCompletedFuture(withResultOf: body) }
        return eventLoop.submit(body)
    }
}
