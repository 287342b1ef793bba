import NIOConcurrencyHelpers
import NIOCore
import Wire

/// Virtual time: the loop's clock. Sleeping schedules a wake-up job instead of blocking a thread.
struct SimulatedTime: TimeSource {
    let loop: SimulationLoop
    let epoch: Duration

    var uptime: Duration { .nanoseconds(loop.nanoseconds) }

    func sleep(untilUptime deadline: Duration) async throws {
        let scheduled = NIOLockedValueBox<Scheduled<Void>?>(nil)
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                let task = loop.scheduleTask(deadline: .uptimeNanoseconds(UInt64(max(0, deadline.nanosecondsValue)))) {}
                scheduled.withLockedValue { $0 = task }
                task.futureResult.whenComplete { result in
                    switch result {
                    case .success: continuation.resume()
                    case .failure: continuation.resume(throwing: CancellationError())
                    }
                }
            }
        } onCancel: {
            scheduled.withLockedValue { $0?.cancel() }
        }
    }
}
