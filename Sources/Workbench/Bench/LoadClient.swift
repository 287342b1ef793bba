import Foundation
import SystemKit

/// When figures count: from the end of the warm-up to the deadline.
struct Window: Sendable {
    let clock: ContinuousClock
    let measureFrom: ContinuousClock.Instant
    let deadline: ContinuousClock.Instant

    init(clock: ContinuousClock, measureFrom: ContinuousClock.Instant, seconds: Int) {
        self.clock = clock
        self.measureFrom = measureFrom
        deadline = measureFrom + .seconds(seconds)
    }
}

/// One simulated app user: its own node (event loop) and, for each system, its own session (connections,
/// registrations, SDKs).
struct LoadClient: Sendable {
    let index: Int
    /// One per system, in the order of ``Catalog/loadBenchParts``.
    let sessions: [any LoadSession]
    /// The operations this client goes round (the others are skipped).
    let chosen: [String]
    /// With `--rate`: how often this client starts an operation, and when its first one is due (clients are staggered
    /// over one interval). Nil: the next operation starts as soon as the last one ended (a closed loop).
    let pace: (interval: Duration, offset: Duration)?

    func run(_ window: Window) async -> Tally {
        var tally = Tally()
        let clock = window.clock
        // Each operation of the round, with the session that performs it.
        let round = Catalog.loadBenchParts.enumerated().flatMap { part, system in
            system.operations.filter { chosen.contains($0.name) }.map { ($0.name, part) }
        }
        var sessions = self.sessions
        var position = index
        var due = clock.now + (pace?.offset ?? .zero)

        while clock.now < window.deadline {
            let (operation, part) = round[position % round.count]
            position += 1
            if pace != nil {
                // Paced, an operation counts from when it was due, however late the last one made it start: a slow
                // server cannot hide its queue by slowing the clients down (coordinated omission, as wrk2 avoids it).
                try? await clock.sleep(until: due)
                guard clock.now < window.deadline else { break }
            }
            let scheduled = pace == nil ? clock.now : due
            due += pace?.interval ?? .zero
            // Set-up a client needs before some operations: not timed, failures are errors of the operation it names.
            let beforeSetUp = clock.now
            if let failure = await sessions[part].prepare(for: operation) {
                tally.failed(failure.operation, failure.text)
                continue
            }
            let started = scheduled + (clock.now - beforeSetUp)
            do {
                try await sessions[part].perform(operation)
                let ended = clock.now
                if ended >= window.measureFrom && ended <= window.deadline { tally.succeeded(operation, seconds: (ended - started).seconds) }
            } catch {
                tally.failed(operation, "\(error)")
            }
        }
        for session in sessions { await session.close() }
        return tally
    }
}
