import Foundation
import Scenario

extension Simulation {
    /// Runs scenario lines (docs/scenario-language.md) in this world, one after the other, as the console runs
    /// them: each line is checked against the world so far (its names, actors, fault points, `${…}` results)
    /// before it runs. An `expect` that does not hold is kept in ``failures`` and the lines go on.
    ///
    /// - parameters:
    ///   - lines: one directive a line; `#` comments and blank lines are skipped.
    ///   - fileID: the file the lines are written in (the caller's, by default), for messages.
    ///   - line: the line they start at (the caller's, by default): they are numbered from it in messages.
    /// - throws: ``SimulationError`` for the first line that is wrong (it does not parse, names something that does
    ///   not exist) or cannot run (an actor that does not start); the lines after it do not run.
    public func run(_ lines: String, fileID: String = #fileID, line: Int = #line) throws(SimulationError) {
        // The file's name alone: relative paths a line names are then looked for from the working directory, as the
        // console does, before Fixtures/.
        let file = ScenarioText.fileName(fileID)
        for (offset, text) in lines.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            try run(line: String(text), file: file, number: line + offset)
        }
    }

    /// Runs a scenario file in this world, line by line as ``run(_:fileID:line:)`` does; relative paths its lines
    /// name are looked for from the file's folder, then from the workbench's `Fixtures/`.
    ///
    /// - throws: ``SimulationError`` when the file cannot be read, or for its first line that is wrong or cannot run.
    public func run(file path: String) throws(SimulationError) {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw SimulationError("cannot read the scenario file \(path): \(error.localizedDescription)")
        }
        for (offset, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            try run(line: String(line), file: path, number: offset + 1)
        }
    }

    /// Parses, checks and runs one line. With `nodesMayComeLater`, the nodes it acts on need not exist yet: ``finish()``
    /// checks that the world had them by the end.
    func run(line text: String, file: String = "simulation", number: Int = 1, nodesMayComeLater: Bool = false) throws(SimulationError) {
        let statement: Statement
        do {
            guard let parsed = try language.parse(line: text, file: file, lineNumber: number) else { return }
            statement = parsed
        } catch {
            throw SimulationError("\(error.file):\(error.line):\(error.column): \(error.message)")
        }
        let hosts = statement.names.filter { $0.kind == .host }.map(\.name)
        if let problem = problems(of: statement, assuming: nodesMayComeLater ? Set(hosts) : []).first {
            throw SimulationError("\(problem.file):\(problem.line):\(problem.column): \(problem.message)")
        }
        if nodesMayComeLater { awaitedNodes.append((statement.source, hosts)) }
        declaredNodes.formUnion(statement.names.filter { $0.kind == .node }.map(\.name))
        try execute(statement)
        noteChange(statement)
    }

    /// Runs a statement through the executor and keeps what failed; throws when the step could not run.
    func execute(_ statement: Statement) throws(SimulationError) {
        statements.append(statement)
        let outcome = executor.execute(statement)
        record(outcome, of: statement)
        if let error = outcome.error { throw SimulationError(error) }
    }

    /// What is wrong with the names, starts and results `statement` uses, given the world so far and the nodes
    /// `assumed` (the console's checks of a typed line). A line with `by NODE` is checked with the lines before it, as a
    /// file is checked whole.
    private func problems(of statement: Statement, assuming assumed: Set<String>) -> [ScenarioError] {
        let actors = context.launchedActors
        let known = declaredNodes.union(kernel.network.hostNames).union(["phone"]).union(assumed)
        var problems: [ScenarioError]
        if statement.names.contains(where: { $0.kind == .traceAuthor }) {
            let lines = statements + [statement]
            problems = (language.checkNames(lines, existing: known, actors: actors) + language.checkTraceAuthors(lines))
                .filter { $0.file == statement.file && $0.line == statement.line }
        } else {
            problems = language.checkNames([statement], existing: known, actors: actors)
        }
        return problems + language.checkStarts([statement], running: actors) + language.checkResults([statement], bound: context.results)
    }
}
