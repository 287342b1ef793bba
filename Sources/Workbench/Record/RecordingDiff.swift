import Scenario

/// A recording's answers held against what the actor answered the same requests (`workbench diff`): the status, the
/// headers that matter, every JSON field (volatile ones by their shape). Each difference is named
/// `NNNN.status`, `NNNN.header.NAME` or `NNNN.json.PATH`, the names a `known.differences` file lists.
struct RecordingDiff {
    struct Difference {
        let name: String
        let recorded: String?
        let actor: String?
    }

    /// Headers compared by value: what a client acts on.
    static let comparedHeaders = ["content-type", "www-authenticate", "allow"]
    /// Headers compared by presence only: their values hold ids the actor makes anew.
    static let presentHeaders = ["location", "set-cookie"]

    private(set) var differences: [Difference] = []
    private(set) var comparedFields = 0

    init(_ scenario: RecordingScenario, replayed: ScenarioRunner.Result) {
        for step in scenario.steps {
            let number = String(Recording.fileName(of: step.exchange.number).dropLast(5))
            guard let values = replayed.published.first(where: { $0.line == step.line && $0.label == step.label })?.values else {
                differences.append(Difference(name: "\(number).status", recorded: "\(step.exchange.response.status)", actor: "(not replayed)"))
                continue
            }
            let recorded = step.exchange.response
            compare("\(number).status", "\(recorded.status)", values["status"] == "error" ? "error: \(values["error"] ?? "")" : values["status"])
            for name in Self.comparedHeaders {
                compare("\(number).header.\(name)", recorded.headers.last { $0.name.lowercased() == name }?.value, values["header.\(name)"])
            }
            for name in Self.presentHeaders {
                let had = recorded.headers.contains { $0.name.lowercased() == name }
                let has = values["header.\(name)"] != nil
                compare("\(number).header.\(name)", had ? "present" : nil, has ? "present" : nil)
            }
            let theirs = JSONFields(recorded.body?.text ?? "")
            let ours = JSONFields(values["body"] ?? "")
            guard theirs.isJSON || ours.isJSON else { continue }
            let mine = Dictionary(ours.fields.map { ($0.path, $0) }) { first, _ in first }
            let recordedPaths = Set(theirs.fields.map(\.path))
            for field in theirs.fields {
                let other = mine[field.path]
                if field.volatile, let other {
                    compare("\(number).json.\(field.path)", field.value.shape, other.value.shape)
                } else {
                    compare("\(number).json.\(field.path)", field.value.shown, other?.value.shown)
                }
            }
            for field in ours.fields where !recordedPaths.contains(field.path) {
                compare("\(number).json.\(field.path)", nil, field.volatile ? field.value.shape : field.value.shown)
            }
        }
    }

    private mutating func compare(_ name: String, _ recorded: String?, _ actor: String?) {
        guard recorded != nil || actor != nil else { return }  // a header neither has
        comparedFields += 1
        if recorded != actor { differences.append(Difference(name: name, recorded: recorded, actor: actor)) }
    }
}
