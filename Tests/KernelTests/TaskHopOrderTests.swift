import Kernel
import NIOConcurrencyHelpers
import NIOCore
import Testing

/// A Swift task's hop between executors runs before other work due at the same instant.
///
/// How many hops a task makes is the compiler's choice: an optimised build elides hops that a debug build makes. Were a
/// hop queued behind the work due now, a seed would interleave a task's steps with network deliveries one way in a
/// debug build and another in a release build, and a release swarm's schedule would replay to another digest in the
/// debug tests. (It did: a mutant whose reset fell between a TLS handshake's end and the request.)
@Suite struct TaskHopOrderTests {
    /// An actor that lives on the simulation loop, as simulated actors do.
    actor OnTheLoop {
        let loop: SimulationLoop
        init(_ loop: SimulationLoop) { self.loop = loop }
        nonisolated var unownedExecutor: UnownedSerialExecutor { loop.asUnownedSerialExecutor() }
        func touch() -> Int { 1 }
    }

    @Test func aTasksHopsRunBeforeWorkQueuedAfterItWasResumed() throws {
        let kernel = Kernel(seed: 1)
        let log = NIOLockedValueBox<[String]>([])
        let actor = OnTheLoop(kernel.loop)
        let parked = NIOLockedValueBox<CheckedContinuation<Void, Never>?>(nil)
        let task = kernel.spawn("hops") {
            await withCheckedContinuation { continuation in parked.withLockedValue { $0 = continuation } }
            log.withLockedValue { $0.append("task resumed") }
            // Each call hops to the actor's executor and back: four hops, each a job on the loop.
            var sum = await actor.touch()
            sum += await actor.touch()
            log.withLockedValue { $0.append("task done after \(sum) calls") }
        }
        kernel.loop.runDue()
        try #require(parked.withLockedValue { $0 } != nil, "the task has suspended")
        // One job resumes the task (a promise it awaits, fulfilled by a delivery), then queues other work due now.
        kernel.loop.execute {
            parked.withLockedValue { $0 }?.resume()
            kernel.loop.execute { log.withLockedValue { $0.append("work queued after") } }
        }
        try kernel.wait(for: task, timeout: .seconds(1))
        kernel.loop.runDue()
        #expect(log.withLockedValue { $0 } == ["task resumed", "task done after 2 calls", "work queued after"])
        #expect(kernel.loop.violations.isEmpty)
    }

    @Test func aTaskResumedByOtherWorkQueuesBehindWhatIsDue() throws {
        // Only a task's own hops go first: a resumption from another job waits its turn, as any job does.
        let kernel = Kernel(seed: 1)
        let log = NIOLockedValueBox<[String]>([])
        let parked = NIOLockedValueBox<CheckedContinuation<Void, Never>?>(nil)
        let task = kernel.spawn("waits") {
            await withCheckedContinuation { continuation in parked.withLockedValue { $0 = continuation } }
            log.withLockedValue { $0.append("task resumed") }
        }
        kernel.loop.runDue()
        kernel.loop.execute { log.withLockedValue { $0.append("work queued before") } }
        kernel.loop.execute { parked.withLockedValue { $0 }?.resume() }
        kernel.loop.execute { log.withLockedValue { $0.append("work queued with the resumption") } }
        try kernel.wait(for: task, timeout: .seconds(1))
        kernel.loop.runDue()
        #expect(
            log.withLockedValue { $0 } == ["work queued before", "work queued with the resumption", "task resumed"])
    }
}
