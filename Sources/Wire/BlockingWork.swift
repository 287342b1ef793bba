import NIOCore
import NIOPosix

/// Where a node's blocking work runs: file-system calls, SQLite, password hashing — anything that would stall
/// the event loop every connection of the node is waiting on.
///
/// Live, the work goes to a thread pool and its result hops back to the node's loop, so a slow fsync or a
/// password hash never delays another client's bytes. Under simulation there is no one to stall (virtual time
/// does not pass while code runs), so the work runs inline, at once, in the kernel's order: the same result, the
/// same trace, whatever the threads of the machine are doing.
public struct BlockingWork: Sendable {
    private let pool: NIOThreadPool?

    /// Runs work on the calling loop, immediately (the simulated wire, tests).
    public static let inline = BlockingWork(pool: nil)

    /// Runs work on `pool`'s threads (the live wire).
    public static func threads(_ pool: NIOThreadPool) -> BlockingWork { BlockingWork(pool: pool) }

    private init(pool: NIOThreadPool?) { self.pool = pool }

    /// Whether work leaves the calling loop (useful for batching: inline there is nothing to batch behind).
    public var isThreaded: Bool { pool != nil }

    /// `body`'s result on `eventLoop` (a connection's own loop, say, when the node's is not where it is needed).
    public func run<T: Sendable>(on eventLoop: any EventLoop, _ body: @escaping @Sendable () throws -> T) -> EventLoopFuture<T> {
        guard let pool else { return eventLoop.makeCompletedFuture { try body() } }
        return pool.runIfActive(eventLoop: eventLoop, body)
    }
}

/// Which event loops a listener's accepted connections run on.
public enum ConnectionLoops: Sendable {
    /// The listening node's own loop: handlers may touch the actor's loop-confined state directly.
    case home
    /// Any loop of the live wire's group, so framing, TLS and decoding use every core. Handlers must reach the
    /// actor's state through its home loop (``Node/task(on:_:)`` does; hop the answer back to the channel's loop).
    /// The simulated wire has one loop, so there this is the same as ``home``.
    case every
}
