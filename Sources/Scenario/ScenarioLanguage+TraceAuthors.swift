import Wire

extension ScenarioLanguage {
    /// Checks every trace line whose `by NAME` names a node the file puts on the network only with `start` lines of
    /// known kinds against what those kinds' actors record, rather than against every system's: `expect no trace
    /// started by ims ipp=1` would pass on nothing, since only MiG's `started` carries `ipp`. A node some other line puts
    /// on the network (a client's `from`, an app), a kernel author (`net`, `bus`, `scenario`), or a node no `start` of the
    /// file runs (the console's world) keeps the check against every system, made when the line was read.
    ///
    /// The console checks each line with the lines it ran before it, so a world built line by line is held to the same.
    public func checkTraceAuthors(_ statements: [Statement]) -> [ScenarioError] {
        guard !kindTraceEvents.isEmpty else { return [] }
        var kindsOn: [String: Set<String>] = [:]
        var otherNodes: Set<String> = []
        for statement in statements {
            let kinds = statement.names.filter { $0.kind == .actorKind }.map(\.name)
            let nodes = statement.names.filter { $0.kind == .node }.map(\.name)
            if kinds.isEmpty {
                otherNodes.formUnion(nodes)
            } else {
                // The actor's node (its `on HOST`, else its kind's host) records its events (its name is refused as an
                // author by `checkNames`).
                for name in nodes { kindsOn[name, default: []].formUnion(kinds) }
            }
        }
        var vocabularies: [String: TraceVocabulary] = [:]
        var errors: [ScenarioError] = []
        for statement in statements {
            guard let by = statement.names.last(where: { $0.kind == .traceAuthor }), !Self.kernelTraceAuthors.contains(by.name),
                !otherNodes.contains(by.name), let kinds = kindsOn[by.name], kinds.allSatisfy({ kindTraceEvents[$0] != nil })
            else { continue }
            let author = TraceAuthor(node: by.name, kinds: kinds.sorted())
            let vocabulary =
                vocabularies[by.name]
                ?? TraceVocabulary(author.kinds.flatMap { kindTraceEvents[$0] ?? [] })
            vocabularies[by.name] = vocabulary
            for use in statement.names {
                let problem: String? =
                    switch use.kind {
                    case .traceEvent where vocabulary.entries[use.name] == nil:
                        "no trace event '\(use.name)'\(author.text)\(didYouMean(use.name, among: vocabulary.events)); "
                            + "its events: \(vocabulary.events.sorted().joined(separator: ", "))"
                    case .traceField(let event): unknownTraceField(use.name, of: event, in: vocabulary, by: author)
                    case .traceValue(let event, let key): unknownTraceValue(use.name, key: key, of: event, in: vocabulary, by: author)
                    default: nil
                    }
                if let problem {
                    errors.append(ScenarioError(file: statement.file, line: statement.line, column: use.column, message: problem))
                    // The first problem of a line is enough: its keys and values are those of an event it cannot see.
                    break
                }
            }
        }
        return errors
    }
}
