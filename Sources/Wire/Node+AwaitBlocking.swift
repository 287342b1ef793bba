import NIOCore

extension Node {
    /// ``blocking(_:)`` for async code: `body`'s result, computed off the event loops live.
    ///
    /// Under simulation `body` runs at once and this returns without suspending. Awaiting even a completed future
    /// would suspend the task and requeue it behind every job already due at this virtual instant, so the
    /// caller's next trace events would move behind other actors' and the digest would change with nothing else.
    /// `nonisolated(nonsending)` for the same reason: a plain `nonisolated` async function is entered with a hop
    /// off the simulation loop's isolation and back. Live, the caller resumes on its task's executor (the node's
    /// loop, for work started by ``task(on:_:)``).
    public nonisolated(nonsending) func awaitBlocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        guard blockingWork.isThreaded else { return try body() }
        return try await blocking(body).get()
    }
}
