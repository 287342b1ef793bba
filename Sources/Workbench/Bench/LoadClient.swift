import Foundation

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

    func run(_ window: Window) async -> Tally {
        var tally = Tally()
        let clock = window.clock
        // Each operation of the round, with the session that performs it.
        let round = Catalog.loadBenchParts.enumerated().flatMap { part, system in
            system.operations.filter { chosen.contains($0.name) }.map { ($0.name, part) }
        }
        var sessions = self.sessions
        var position = index

        while clock.now < window.deadline {
            let (operation, part) = round[position % round.count]
            position += 1
            // Set-up a client needs before some operations: not timed, failures are errors of the operation it names.
            if let failure = await sessions[part].prepare(for: operation) {
                tally.failed(failure.operation, failure.text)
                continue
            }
            let started = clock.now
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
