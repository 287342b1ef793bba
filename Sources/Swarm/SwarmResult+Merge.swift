extension SwarmResult {
    /// One result of several shards' results: every run once, in order. A run present in two parts must have the
    /// same digest in both.
    ///
    /// - throws: ``SwarmError`` (`.argument`) if there are no parts, the parts ran other files or other faults, or
    ///   one seed has two digests (the shards ran different builds or scenario files).
    public static func merge(_ parts: [SwarmResult]) throws -> SwarmResult {
        guard let first = parts.first else { throw SwarmError(.argument, "expected at least one result file") }
        // Mutants are chosen from every run before them: one exploration's runs are whole, and two explorations of
        // other seeds do not add up to the exploration of both.
        guard !parts.contains(where: { $0.explore != nil }) else {
            throw SwarmError(.argument, "an --explore result cannot be merged: its mutants depend on all of its runs (run the swarm without --shard)")
        }
        var byKey: [String: SwarmRun] = [:]
        for part in parts {
            guard part.files.map(baseName) == first.files.map(baseName), part.faults == first.faults, part.mix == first.mix else {
                throw SwarmError(
                    .argument,
                    "the results did not run the same scenarios with the same faults: \(first.files) --faults \(first.faults.rawValue) "
                        + "--mix \(first.mix.rawValue) vs \(part.files) --faults \(part.faults.rawValue) --mix \(part.mix.rawValue)")
            }
            for run in part.runs {
                let key = "\(baseName(run.file)) \(run.seed)"
                if let earlier = byKey[key], earlier.digest != run.digest {
                    throw SwarmError(
                        .argument,
                        "seed \(run.seed) of \(run.file) ran twice with different digests (\(earlier.digest.prefix(16)) vs \(run.digest.prefix(16))): "
                            + "the shards ran different builds or scenario files")
                }
                byKey[key] = run
            }
        }
        return SwarmResult(
            files: first.files, seeds: parts.map(\.seeds).uniqued().joined(separator: ","), faults: first.faults, mix: first.mix,
            shard: nil, runs: ordered(Array(byKey.values), files: first.files), wallSeconds: parts.map(\.wallSeconds).max() ?? 0,
            reachPoints: Set(parts.flatMap(\.reachPoints)).sorted(), requireReach: parts.contains { $0.requireReach })
    }
}

/// Shards may run the same files from different directories.
private func baseName(_ path: String) -> String { path.split(separator: "/").last.map(String.init) ?? path }

extension Array where Element: Hashable {
    fileprivate func uniqued() -> [Element] {
        var seen = Set<Element>()
        return filter { seen.insert($0).inserted }
    }
}
