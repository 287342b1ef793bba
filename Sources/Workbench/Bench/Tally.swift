import Foundation

/// What clients saw, per operation.
struct Tally: Sendable {
    struct PerOperation: Sendable {
        /// Latencies in seconds of the operations that completed successfully inside the window.
        var latencies: [Double] = []
        var errors = 0
        /// Distinct error texts, in the order first seen (a few only).
        var errorTexts: [String] = []
    }

    var operations: [String: PerOperation] = [:]

    static let keptErrorTexts = 5

    mutating func succeeded(_ operation: String, seconds: Double) {
        operations[operation, default: PerOperation()].latencies.append(seconds)
    }

    mutating func failed(_ operation: String, _ text: String) {
        var entry = operations[operation, default: PerOperation()]
        entry.errors += 1
        // Clients differ only in numbers (ids, ports, k): the first few distinct texts are enough to see the causes.
        let text = String(text.prefix(300))
        if entry.errorTexts.count < Self.keptErrorTexts, !entry.errorTexts.contains(text) { entry.errorTexts.append(text) }
        operations[operation] = entry
    }

    mutating func merge(_ other: Tally) {
        for (operation, theirs) in other.operations {
            var entry = operations[operation, default: PerOperation()]
            entry.latencies += theirs.latencies
            entry.errors += theirs.errors
            for text in theirs.errorTexts where entry.errorTexts.count < Self.keptErrorTexts && !entry.errorTexts.contains(text) {
                entry.errorTexts.append(text)
            }
            operations[operation] = entry
        }
    }

    var totalErrors: Int { operations.values.reduce(0) { $0 + $1.errors } }

    func errorTexts(limit: Int) -> [(String, [String])] {
        LoadBench.operations.compactMap { operation in
            guard let texts = operations[operation]?.errorTexts, !texts.isEmpty else { return nil }
            return (operation, Array(texts.prefix(limit)))
        }
    }
}
