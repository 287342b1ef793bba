import Foundation
import Recordings
import Scenario

/// A recording's answers held against what the actor answered the same requests (`workbench diff`): the status, the
/// headers that matter, every JSON field (volatile ones by their shape). Each difference is named
/// `NNNN.status`, `NNNN.header.NAME`, `NNNN.json.PATH` or (an IPP answer) `NNNN.ipp.status` and `NNNN.ipp.GROUP.NAME`,
/// the names a `known.differences` file lists.
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
            if let ipp = recorded.body?.ipp {
                let mine = values["body-base64"].flatMap { Data(base64Encoded: $0) }.map { RecordedIPP(Array($0), side: .response) }
                compareIPP(number, IPPFields(ipp), mine.map(IPPFields.init))
                continue
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

    /// An IPP answer's status and every attribute, by group and name (volatile ones by their syntax only).
    private mutating func compareIPP(_ number: String, _ recorded: IPPFields, _ actor: IPPFields?) {
        guard let actor else {
            compare("\(number).ipp.status", recorded.status, "(no IPP answer)")
            return
        }
        compare("\(number).ipp.status", recorded.status, actor.status)
        let mine = Dictionary(actor.fields.map { ($0.path, $0) }) { first, _ in first }
        for field in recorded.fields {
            let other = mine[field.path]
            compare("\(number).ipp.\(field.path)", field.volatile ? field.syntax : field.value, field.volatile ? other?.syntax : other?.value)
        }
        let recordedPaths = Set(recorded.fields.map(\.path))
        for field in actor.fields where !recordedPaths.contains(field.path) {
            compare("\(number).ipp.\(field.path)", nil, field.volatile ? field.syntax : field.value)
        }
    }

    private mutating func compare(_ name: String, _ recorded: String?, _ actor: String?) {
        guard recorded != nil || actor != nil else { return }  // a header neither has
        comparedFields += 1
        if recorded != actor { differences.append(Difference(name: name, recorded: recorded, actor: actor)) }
    }
}

/// The attributes of an IPP answer, by group and name (`printer.printer-state`; a group that repeats, as Get-Jobs' job
/// groups, numbered: `job[1].job-id`), each as ipptool prints it. An attribute whose name or syntax says it changes from
/// run to run or server to server (a URI, a time or date, an id, a UUID) is volatile: only its syntax is held to.
struct IPPFields {
    struct Field {
        let path: String
        /// `(enum) = 3`: the syntax and the values.
        let value: String
        /// `(enum)`.
        let syntax: String
        let volatile: Bool
    }

    let status: String
    let fields: [Field]

    init(_ ipp: RecordedIPP) {
        status = ipp.code ?? "(undecodable: \(ipp.problem ?? "?"))"
        let groups = ipp.groups ?? []
        let tags = groups.map { $0.tag.replacingOccurrences(of: "-attributes-tag", with: "") }
        var fields: [Field] = []
        var seen: [String: Int] = [:]
        for (group, tag) in zip(groups, tags) {
            let index = seen[tag, default: 0]
            seen[tag] = index + 1
            let prefix = tags.filter { $0 == tag }.count > 1 ? "\(tag)[\(index)]" : tag
            for attribute in group.attributes {
                guard let open = attribute.range(of: " (") else { continue }
                let name = String(attribute[..<open.lowerBound])
                let value = String(attribute[attribute.index(after: open.lowerBound)...])
                let syntax = value.split(separator: " = ", maxSplits: 1).first.map(String.init) ?? value
                fields.append(Field(path: "\(prefix).\(name)", value: value, syntax: syntax, volatile: Self.isVolatile(name, syntax: syntax)))
            }
        }
        self.fields = fields
    }

    /// A URI holds the server's host and port (`printer-icons`, `printer-more-info`), a dateTime the moment.
    static func isVolatile(_ name: String, syntax: String) -> Bool {
        ["uri", "time", "date", "uuid"].contains { name.contains($0) } || name.hasSuffix("-id")
            || ["(uri)", "(1setOf uri)", "(dateTime)", "(1setOf dateTime)"].contains(syntax)
    }
}
