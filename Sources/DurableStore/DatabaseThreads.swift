import NIOCore
import NIOPosix
import Synchronization

/// One database's own threads: its readers and its group commit, started at the first live use.
///
/// Not the live wire's shared pool: there a read queued behind another system's document fsyncs and commits (a few
/// milliseconds each, tens under load), and a request with three reads waited three times. With its own threads a
/// database's reads wait only for each other, and one thread is always free for them while a batch commits.
/// Under simulation nothing runs here (work is inline), so the threads are never started.
final class DatabaseThreads: Sendable {
    private let pool: NIOThreadPool
    private let started = Mutex(false)

    init(count: Int) {
        pool = NIOThreadPool(numberOfThreads: count)
    }

    /// `body`'s result on `eventLoop`, computed on one of these threads.
    func run<T: Sendable>(on eventLoop: any EventLoop, _ body: @escaping @Sendable () throws -> T) -> EventLoopFuture<T> {
        start()
        return pool.runIfActive(eventLoop: eventLoop, body)
    }

    /// Runs `body` on one of these threads, with no loop to report to (`body` says whether the pool still ran it).
    func submit(_ body: @escaping @Sendable (NIOThreadPool.WorkItemState) -> Void) {
        start()
        pool.submit(body)
    }

    private func start() {
        started.withLock { started in
            if !started { pool.start() }
            started = true
        }
    }

    deinit {
        if started.withLock({ $0 }) { pool.shutdownGracefully { _ in } }
    }
}
