import Synchronization

/// A wall-clock time limit passed: the test fails with this message instead of hanging.
public struct DeadlineExceeded: Error, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}

/// How long one live-wire step may take before its test fails instead of hanging. Generous: the whole suite
/// runs in parallel on two cores, where a loopback round trip has waited tens of seconds for a CPU; a step that
/// works never waits for this limit.
public let liveStepLimit: Duration = .seconds(120)

/// Runs `body` and returns its result, or throws ``DeadlineExceeded`` naming `what` if it has not finished within
/// `limit` of wall-clock time. On the deadline the body's task is cancelled, but the caller does not wait for it
/// to end: a body that ignores cancellation cannot hold the test.
///
/// For live-wire tests (real sockets, real time). Simulated work is bounded by the kernel instead:
/// `Kernel.wait(for:timeout:)` fails when virtual time runs out or nothing is left to run.
public func withDeadline<T: Sendable>(
    _ limit: Duration, _ what: String, _ body: @escaping @Sendable () async throws -> T
) async throws -> T {
    let outcome = Outcome<T>()
    return try await withTaskCancellationHandler {
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
            outcome.start(continuation, limit: limit, what: what, body)
        }
    } onCancel: {
        outcome.settle(.failure(CancellationError()))
    }
}

/// The first element of `sequence` that satisfies `predicate`, within `limit` of wall-clock time.
///
/// - throws: ``DeadlineExceeded`` naming `what` when no such element came in time, or when the sequence ended first.
public func firstElement<S: AsyncSequence & Sendable>(
    of sequence: S, within limit: Duration, _ what: String, where predicate: @escaping @Sendable (S.Element) -> Bool = { _ in true }
) async throws -> S.Element where S.Element: Sendable {
    try await withDeadline(limit, what) {
        for try await element in sequence where predicate(element) { return element }
        throw DeadlineExceeded("\(what): the sequence ended without it")
    }
}

/// Whichever comes first, the body's result or the deadline, completes the continuation; the other is ignored.
private final class Outcome<T: Sendable>: Sendable {
    private struct State {
        var continuation: CheckedContinuation<T, any Error>?
        var settled: Result<T, any Error>?
        var tasks: [Task<Void, Never>] = []
    }

    private let state = Mutex(State())

    func start(
        _ continuation: CheckedContinuation<T, any Error>, limit: Duration, what: String,
        _ body: @escaping @Sendable () async throws -> T
    ) {
        let early = state.withLock { state -> Result<T, any Error>? in
            if let settled = state.settled { return settled }
            state.continuation = continuation
            return nil
        }
        if let early {
            continuation.resume(with: early)
            return
        }
        let work = Task {
            do { self.settle(.success(try await body())) } catch { self.settle(.failure(error)) }
        }
        let timer = Task {
            do { try await Task.sleep(for: limit) } catch { return }
            self.settle(.failure(DeadlineExceeded("\(what) did not happen within \(limit)")))
        }
        let late = state.withLock { state -> Bool in
            state.tasks = [work, timer]
            return state.continuation == nil
        }
        if late {
            work.cancel()
            timer.cancel()
        }
    }

    func settle(_ result: Result<T, any Error>) {
        let (continuation, tasks) = state.withLock { state -> (CheckedContinuation<T, any Error>?, [Task<Void, Never>]) in
            guard state.settled == nil else { return (nil, []) }
            state.settled = result
            defer { state.continuation = nil }
            return (state.continuation, state.tasks)
        }
        for task in tasks { task.cancel() }
        continuation?.resume(with: result)
    }
}
