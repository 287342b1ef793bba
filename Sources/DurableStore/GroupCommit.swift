import GRDB
import NIOCore
import NIOPosix
import Synchronization

/// Live writes to one database: queued as they arrive, committed in batches on the database's threads.
///
/// At most one batch is in flight. A write that arrives while one is committing waits for the next batch, which
/// takes everything waiting (up to `maximumBatch`): under load many writes share one transaction and one fsync,
/// alone a write is committed at once. One of the database's threads commits batch after batch while writes keep
/// arriving, and only one, so the other threads stay free for reads. It settles each write's promise itself (the
/// write's loop is woken once, for its answer) and hops to no loop between batches: going back to the node's loop
/// after every batch to start the next woke that loop once per commit, for nothing when no write waited.
final class GroupCommit: Sendable {
    /// One queued write: runs its body in a savepoint and returns how to settle its promise once the batch's
    /// commit is known; or is failed without running when its batch cannot start.
    private struct Pending: Sendable {
        let run: @Sendable (Database) -> @Sendable (Result<Void, any Error>) -> Void
        let fail: @Sendable (any Error) -> Void
    }

    private struct State {
        var waiting: [Pending] = []
        var committing = false
    }

    private let pool: DatabasePool
    private let threads: DatabaseThreads
    private let maximumBatch: Int
    private let state = Mutex(State())

    init(pool: DatabasePool, threads: DatabaseThreads, maximumBatch: Int) {
        precondition(maximumBatch > 0, "a group commit holds at least one write")
        self.pool = pool
        self.threads = threads
        self.maximumBatch = maximumBatch
    }

    /// Queues `body`; its future completes on `eventLoop` after the commit that holds it.
    func submit<T: Sendable>(
        _ body: @escaping @Sendable (Database) throws -> T, completingOn eventLoop: any EventLoop
    ) -> EventLoopFuture<T> {
        let promise = eventLoop.makePromise(of: T.self)
        let pending = Pending(
            run: { db in
                let outcome: Result<T, any Error>
                do {
                    var value: T?
                    try db.inSavepoint {
                        value = try body(db)
                        return .commit
                    }
                    outcome = .success(value!)
                } catch {
                    outcome = .failure(error)
                }
                return { commit in
                    switch commit {
                    case .success: promise.completeWith(outcome)
                    case .failure(let error): promise.fail(error)
                    }
                }
            },
            fail: { promise.fail($0) })
        let startsBatch = state.withLock { state in
            state.waiting.append(pending)
            guard !state.committing else { return false }
            state.committing = true
            return true
        }
        if startsBatch { commitBatches() }
        return promise.futureResult
    }

    /// On one of the database's threads: commits the writes waiting now, then the ones that arrived meanwhile,
    /// until none is waiting.
    private func commitBatches() {
        threads.submit { [self] workState in
            guard case .active = workState else {
                // The thread pool refused the job (it is shutting down): nothing ran, fail everyone waiting.
                let waiting = state.withLock { state in
                    state.committing = false
                    defer { state.waiting.removeAll() }
                    return state.waiting
                }
                for pending in waiting { pending.fail(NIOThreadPoolError.ThreadPoolInactive()) }
                return
            }
            while true {
                let batch = state.withLock { state in
                    let batch = Array(state.waiting.prefix(maximumBatch))
                    state.waiting.removeFirst(batch.count)
                    return batch
                }
                commit(batch)
                let more = state.withLock { state in
                    if state.waiting.isEmpty { state.committing = false }
                    return state.committing
                }
                guard more else { return }
            }
        }
    }

    /// One transaction for `batch`, each write in its savepoint; every promise settled after the commit.
    private func commit(_ batch: [Pending]) {
        var settle: [@Sendable (Result<Void, any Error>) -> Void] = []
        settle.reserveCapacity(batch.count)
        do {
            try pool.write { db in
                for pending in batch {
                    settle.append(pending.run(db))
                    // SQLite rolls the whole transaction back on some errors (disk full, I/O): then the writes
                    // before this one are gone too, and the batch must fail rather than commit what is left.
                    guard db.isInsideTransaction else {
                        throw DurableDatabaseError("SQLite rolled the group commit back; none of its \(batch.count) writes was stored")
                    }
                }
            }
        } catch {
            for pending in batch[settle.count...] { pending.fail(error) }
            for done in settle { done(.failure(error)) }
            return
        }
        for done in settle { done(.success(())) }
    }
}
