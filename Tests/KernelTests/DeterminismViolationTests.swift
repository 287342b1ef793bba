import Dispatch
import Foundation
import Kernel
import NIOConcurrencyHelpers
import NIOCore
import Testing
import Wire

/// The kernel's determinism check (``SimulationLoop/violations``), made to fire.
///
/// What it watches: work submitted to the simulation loop from a thread other than the loop's owner (the thread that
/// drives it, last drove it, or created it) — by NIO's `execute` or `scheduleTask`, by a promise completed off the
/// loop, or by a Swift task resumed from another thread — for the whole life of the loop, while it is being driven
/// and between drives. What it does not watch: code that reads the wall clock, draws unseeded randomness or blocks
/// the loop thread without ever handing work to the loop from another thread; such code leaves nothing to detect.
///
/// Every test below commits one violation on purpose and checks it is reported; the last ones check that the owner's
/// own submissions are not, so that the many `violations.isEmpty` checks elsewhere mean something.
@Suite struct DeterminismViolationTests {
    /// Runs `body` on a new thread and returns once it has finished.
    static func onAnotherThread(_ body: @escaping @Sendable () -> Void) {
        let done = DispatchSemaphore(value: 0)
        let thread = Thread {
            body()
            done.signal()
        }
        thread.start()
        done.wait()
    }

    static let foreign = "work was submitted from a thread the kernel does not drive"

    @Test func executeFromAnotherThreadWhileTheLoopIsDrivenIsReported() {
        let kernel = Kernel(seed: 1)
        let ran = NIOLockedValueBox(false)
        kernel.advance(by: .milliseconds(5))
        // A job on the loop hands work to another thread, which submits it back while the loop is being driven.
        kernel.loop.execute {
            Self.onAnotherThread { kernel.loop.execute { ran.withLockedValue { $0 = true } } }
        }
        kernel.loop.runDue()
        #expect(ran.withLockedValue { $0 }, "escaped work is still run")
        #expect(kernel.loop.violations == ["\(Self.foreign) at t=5000000ns"])
    }

    @Test func aTimerScheduledFromAnotherThreadIsReported() {
        let kernel = Kernel(seed: 1)
        let fired = NIOLockedValueBox(false)
        kernel.loop.execute {
            Self.onAnotherThread { _ = kernel.loop.scheduleTask(in: .seconds(1)) { fired.withLockedValue { $0 = true } } }
        }
        kernel.advance(by: .seconds(2))
        #expect(fired.withLockedValue { $0 })
        #expect(kernel.loop.violations == ["\(Self.foreign) at t=0ns"])
    }

    @Test func aTaskResumedFromAnotherThreadIsReported() throws {
        // The commonest real escape: simulated async code awaits something that completes on a thread of its own
        // (a database queue, a blocking call moved to a thread) and is resumed from there.
        let kernel = Kernel(seed: 1)
        let parked = NIOLockedValueBox<CheckedContinuation<Int, Never>?>(nil)
        let task = kernel.spawn("awaits a foreign thread") {
            await withCheckedContinuation { continuation in parked.withLockedValue { $0 = continuation } }
        }
        kernel.loop.runDue()
        try #require(parked.withLockedValue { $0 } != nil, "the task has suspended")
        // Resumes it from another thread, and holds the loop until that has happened, so the resumption arrives
        // while the loop is being driven.
        kernel.loop.execute {
            Self.onAnotherThread { parked.withLockedValue { $0 }?.resume(returning: 42) }
        }
        #expect(try kernel.wait(for: task, timeout: .seconds(1)) == 42)
        #expect(kernel.loop.violations == ["\(Self.foreign) at t=0ns"])
    }

    @Test func workThatEscapedADriveAndComesBackAfterItEndedIsReported() throws {
        // Before the check covered the time between drives, this went unseen: the drive ends (the task seems stuck),
        // then the escaped work comes back.
        let kernel = Kernel(seed: 1)
        let parked = NIOLockedValueBox<CheckedContinuation<String, Never>?>(nil)
        let task = kernel.spawn("escapes") {
            await withCheckedContinuation { continuation in parked.withLockedValue { $0 = continuation } }
        }
        #expect(throws: KernelError.self) { try kernel.wait(for: task, timeout: .seconds(1)) }
        #expect(kernel.loop.violations.isEmpty)
        Self.onAnotherThread { parked.withLockedValue { $0 }?.resume(returning: "late") }
        #expect(kernel.loop.violations == ["\(Self.foreign) at t=0ns, between drives"])
        #expect(try kernel.wait(for: task, timeout: .seconds(1)) == "late")
    }

    @Test func executeFromAnotherThreadBetweenDrivesIsReported() {
        let kernel = Kernel(seed: 1)
        kernel.advance(by: .seconds(3))
        Self.onAnotherThread { kernel.loop.execute {} }
        Self.onAnotherThread { _ = kernel.loop.scheduleTask(in: .seconds(1)) {} }
        #expect(
            kernel.loop.violations == [
                "\(Self.foreign) at t=3000000000ns, between drives",
                "\(Self.foreign) at t=3000000000ns, between drives",
            ])
    }

    @Test func aPromiseCompletedOnAnotherThreadIsReported() throws {
        let kernel = Kernel(seed: 1)
        let promise = kernel.loop.makePromise(of: Int.self)
        let task = kernel.spawn("awaits a future") { try await promise.futureResult.get() }
        kernel.loop.runDue()
        // NIO completes a promise off its loop by submitting the completion to the loop.
        Self.onAnotherThread { promise.succeed(7) }
        #expect(kernel.loop.violations.count == 1)
        #expect(kernel.loop.violations.first?.hasPrefix(Self.foreign) == true)
        #expect(try kernel.wait(for: task, timeout: .seconds(1)) == 7)
    }

    @Test func aStalledWaitNamesTheViolationThatExplainsIt() {
        let kernel = Kernel(seed: 1)
        let parked = NIOLockedValueBox<CheckedContinuation<Void, Never>?>(nil)
        let task = kernel.spawn("waits for a thread") {
            await withCheckedContinuation { continuation in parked.withLockedValue { $0 = continuation } }
        }
        kernel.loop.execute { Self.onAnotherThread { kernel.loop.execute {} } }
        #expect {
            try kernel.wait(for: task, timeout: .seconds(1))
        } throws: { error in
            guard let error = error as? KernelError, error.kind == .stalled else { return false }
            return error.message == "'waits for a thread' is waiting but nothing is scheduled to wake it"
                + " (determinism violations: \(Self.foreign) at t=0ns)"
        }
        parked.withLockedValue { $0 }?.resume()
    }

    @Test func theOwnersOwnSubmissionsAreNotViolations() throws {
        // Everything a test thread normally does to a kernel, between and during drives, from the thread that drives it.
        let kernel = Kernel(seed: 1)
        let node = kernel.node("phone")
        kernel.loop.execute {}
        _ = kernel.loop.scheduleTask(in: .seconds(1)) {}
        let promise = kernel.loop.makePromise(of: Int.self)
        let task = kernel.spawn("awaits") {
            let value = try await promise.futureResult.get()
            try await node.clock.sleep(for: .seconds(2))
            return value + 1
        }
        kernel.advance(by: .seconds(1))
        promise.succeed(1)
        #expect(try kernel.wait(for: task, timeout: .seconds(5)) == 2)
        #expect(kernel.loop.violations.isEmpty)
    }

    @Test func aDriverThatMovesToAnotherThreadOwnsTheLoopOnceItDrivesThere() {
        let kernel = Kernel(seed: 1)
        let result = NIOLockedValueBox<Int?>(nil)
        Self.onAnotherThread {
            kernel.loop.runDue()  // drives first: this thread is the owner from now on
            let task = kernel.spawn("on the new driver's thread") { 5 }
            result.withLockedValue { $0 = try? kernel.wait(for: task, timeout: .seconds(1)) }
        }
        #expect(result.withLockedValue { $0 } == 5)
        #expect(kernel.loop.violations.isEmpty)
        // The thread that created the kernel is no longer the owner: its submissions are reported until it drives again.
        kernel.loop.execute {}
        #expect(kernel.loop.violations == ["\(Self.foreign) at t=0ns, between drives"])
        kernel.loop.runDue()
        kernel.loop.execute {}
        #expect(kernel.loop.violations.count == 1)
    }
}
