import ArgumentParser
import Foundation
import Scenario
import SystemKit

/// `workbench compare FILE --target SYSTEM=URL`: the same scenario against the workbench's actor and against an outside
/// server, step by step, so a team sees where the simulated system differs from the real one.
struct CompareCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "compare",
        abstract: "Run a scenario against an actor and against a real server, and show where what the client saw differs.",
        discussion: """
            Both runs are on the live wire (see 'workbench run --help', --live). Lines that need the actor's inside (its \
            fault points, its trace, links to it) cannot run against the target: they are left out of both runs, so the two \
            are the same steps, and listed, with the lines that read what only they would have bound. Each result a line gives (HTTP status, IPP status and job state, exit codes, \
            fields) is held side by side, field by field (.elapsed aside: times are the machine's), and so is each expectation. \
            A difference listed in FILE's known-differences file (the scenario's name with .differences: one \
            'NAME.FIELD  # why' per line) is shown as known; any other makes the exit status 1.
            """
    )

    @Argument(help: "The scenario file.")
    var file: String

    @OptionGroup var target: TargetOption

    @OptionGroup var seed: SeedOption

    func validate() throws {
        if try target.targets().isEmpty { throw ValidationError("compare needs --target SYSTEM=URL: the server to compare the actor with") }
    }

    func run() throws {
        let targets = try target.targets()
        guard let script = try ScenarioFiles.load([file], live: .run).first else { return }
        let (kept, left) = Self.comparable(script, targets: targets)
        let known = try KnownDifferences(scenario: file)

        let runner = ScenarioRunner(language: Catalog.language, catalog: Catalog.actorKinds)
        // Both on the machine's calendar, as the target's run must be: dates the two give are then alike.
        let actor = runner.runLive(kept, seed: seed.value, keepPublished: true, machineCalendar: true) { _ in }
        let real = runner.runLive(kept, seed: seed.value, targets: targets, keepPublished: true) { _ in }
        // A targeted `start` starts nothing: its endpoints are not the target's to have. A mark is a time on the machine.
        let skipped = Set(kept.statements.filter { ["start", "mark"].contains($0.directive) }.map(\.line))
        let comparison = Comparison(actor: actor, target: real, skipping: skipped)

        let against = targets.map { "\($0.kind) \($0.shown)" }.joined(separator: ", ")
        print("compare \(script.file): the actor, then \(against)")
        for (statement, why) in left { print("  not compared, line \(statement.line): \(why)") }
        let unexplained = known.report(
            comparison.differences.map {
                ($0.name, "line \($0.line) \($0.name): actor \(Self.quoted($0.actor)), target \(Self.quoted($0.target))")
            }, agreeing: "the two runs agree")
        if let error = actor.error { print("stopped: the actor's run: \(error)") }
        if let error = real.error { print("stopped: the target's run: \(error)") }
        print(
            "\(unexplained == 0 ? "SAME" : "DIFFERENT") \(comparison.comparedFields) fields in \(comparison.comparedSteps) steps and "
                + "\(comparison.comparedExpectations) expectations compared: \(comparison.differences.count) differ"
                + (comparison.differences.count > unexplained ? " (\(comparison.differences.count - unexplained) known)" : "")
                + (left.isEmpty ? "" : ", \(left.count) line\(left.count == 1 ? "" : "s") not compared"))
        if unexplained > 0 || actor.error != nil || real.error != nil { throw ExitStatus.checkFailed }
    }

    /// The lines both runs take, and those left out with why: the lines a target cannot run, and after them every line
    /// that reads a result only a left-out line would have bound (it would stop the run, not compare it).
    static func comparable(_ script: Script, targets: [Target]) -> (kept: Script, left: [(Statement, String)]) {
        var kept: [Statement] = []
        var left: [(Statement, String)] = []
        var gone: [String: Int] = [:]  // a result name -> the left-out line that last bound it
        for statement in script.statements {
            var why = Target.problem(statement, targets: targets)?.message
            if why == nil, let use = statement.reads.first(where: { gone[String($0.name.prefix { $0 != "." })] != nil }) {
                let name = String(use.name.prefix { $0 != "." })
                why = "it reads ${\(use.name)}, which line \(gone[name] ?? 0) would have bound and is not compared"
            }
            if let why {
                left.append((statement, why))
                if let label = statement.binding?.label { gone[label] = statement.line }
            } else {
                kept.append(statement)
                if let label = statement.binding?.label { gone[label] = nil }
            }
        }
        return (Script(file: script.file, statements: kept), left)
    }

    static func quoted(_ value: String?) -> String {
        guard let value else { return "(none)" }
        let line = value.count > 120 ? String(value.prefix(117)) + "…" : value
        return "\"" + line.replacingOccurrences(of: "\n", with: "\\n") + "\""
    }
}

/// Two runs of one scenario held side by side: each published result's fields, and each expectation's outcome.
struct Comparison {
    struct Difference: Equatable {
        let line: Int
        /// `NAME.FIELD` of a result, or the expectation (`expect …`) whose outcome differs.
        let name: String
        let actor: String?
        let target: String?
    }

    /// Fields no two runs agree on: the machine's time.
    static let volatile: Set<String> = ["elapsed"]

    private(set) var differences: [Difference] = []
    private(set) var comparedSteps = 0
    private(set) var comparedFields = 0
    private(set) var comparedExpectations = 0

    /// - parameter skipping: lines whose results are not compared (a targeted `start`: the actor's endpoints against the
    ///   target's URL).
    init(actor: ScenarioRunner.Result, target: ScenarioRunner.Result, skipping: Set<Int> = []) {
        // The same lines publish in the same order until one run stops early; past that, what one has the other lacks.
        let count = max(actor.published.count, target.published.count)
        for index in 0..<count {
            let left = index < actor.published.count ? actor.published[index] : nil
            let right = index < target.published.count ? target.published[index] : nil
            let line = left?.line ?? right?.line ?? 0
            let label = left?.label ?? right?.label ?? ""
            guard !skipping.contains(line) else { continue }
            comparedSteps += 1
            let fields = Set((left?.values.keys).map(Array.init) ?? []).union((right?.values.keys).map(Array.init) ?? [])
            for field in fields.sorted() where !Self.volatile.contains(field) {
                comparedFields += 1
                let (a, b) = (left?.values[field], right?.values[field])
                if a != b { differences.append(Difference(line: line, name: field.isEmpty ? label : "\(label).\(field)", actor: a, target: b)) }
            }
        }
        let targetOutcomes = Dictionary(target.expectations.map { ("\($0.line) \($0.text)", $0.failure) }) { first, _ in first }
        for expectation in actor.expectations {
            comparedExpectations += 1
            let theirs = targetOutcomes["\(expectation.line) \(expectation.text)"]
            let (a, b) = (expectation.failure == nil ? "held" : "failed", theirs.map { $0 == nil ? "held" : "failed" } ?? "not reached")
            if a != b { differences.append(Difference(line: expectation.line, name: expectation.text, actor: a, target: b)) }
        }
    }
}

/// The differences a scenario's author expects between the actor and the real server, with why: `FILE.differences`
/// next to the scenario, one `NAME.FIELD  # why` (or `expect TEXT  # why`) per line.
struct KnownDifferences {
    private var reasons: [String: String] = [:]

    /// None listed.
    init() {}

    init(scenario: String) throws {
        try self.init(path: (scenario.hasSuffix(".scn") ? String(scenario.dropLast(4)) : scenario) + ".differences")
    }

    /// The differences listed in the file at `path` (none when there is no such file): a scenario's, or a recording's
    /// `known.differences` (`workbench diff`). A name may hold `*`s: the line then explains every difference it matches.
    init(path: String) throws {
        guard FileManager.default.fileExists(atPath: path) else { return }
        let text = try String(contentsOfFile: path, encoding: .utf8)
        for (number, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = raw.trimmingCharacters(in: .whitespaces)
            guard !line.isEmpty, !line.hasPrefix("#") else { continue }
            let parts = line.components(separatedBy: "  # ")
            let name = parts[0].trimmingCharacters(in: .whitespaces)
            guard parts.count == 2, !name.isEmpty else {
                throw ValidationError("\(path):\(number + 1): expected 'NAME.FIELD  # why' (two spaces, then '# ' and the reason)")
            }
            reasons[name] = parts[1]
        }
    }

    /// The reason listed for `name`: its own line, else the first line (in name order) whose `*`s, each any run of
    /// characters, make it match (`0011.ipp.printer.*`, `*.ipp.operation.status-message`).
    func reason(for name: String) -> String? {
        reasons[name] ?? reasons.keys.sorted().first { $0.contains("*") && Self.matches(name, $0) }.flatMap { reasons[$0] }
    }

    /// Whether `name` matches `pattern`, where `*` stands for any characters (nothing else is special: names hold `[`).
    static func matches(_ name: String, _ pattern: String) -> Bool {
        let pieces = pattern.split(separator: "*", omittingEmptySubsequences: false).map(String.init)
        guard pieces.count > 1 else { return name == pattern }
        guard name.hasPrefix(pieces[0]), name.dropFirst(pieces[0].count).hasSuffix(pieces[pieces.count - 1]) else { return false }
        var rest = Substring(name.dropFirst(pieces[0].count).dropLast(pieces[pieces.count - 1].count))
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let range = rest.range(of: piece) else { return false }
            rest = rest[range.upperBound...]
        }
        return true
    }

    /// Prints each difference (`name` and what each side had, as `text`) as `DIFFERS` or as `known` with its reason, then
    /// the listed names no difference has (`agreeing`: what agreed on them); returns how many are not listed.
    func report(_ differences: [(name: String, text: String)], agreeing: String) -> Int {
        var unexplained = 0
        for difference in differences {
            let why = reason(for: difference.name)
            if why == nil { unexplained += 1 }
            print("\(why == nil ? "DIFFERS" : "known  ") \(difference.text)" + (why.map { "  (\($0))" } ?? ""))
        }
        for name in unused(by: differences.map(\.name)) {
            print("note: \(name) is listed as a known difference but \(agreeing) on it (or it was not compared)")
        }
        return unexplained
    }

    /// Listed names no difference has: stale entries, worth saying.
    func unused(by names: [String]) -> [String] {
        let seen = Set(names)
        return reasons.keys.filter { listed in
            listed.contains("*") ? !names.contains { reasons[$0] == nil && Self.matches($0, listed) } : !seen.contains(listed)
        }.sorted()
    }
}
