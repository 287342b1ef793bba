import ArgumentParser
import Foundation
import Recordings
import Scenario
import SystemKit

/// `workbench diff DIR --against KIND`: a recording's requests replayed against the workbench's own actor under
/// simulation, and every difference in what came back; docs/record.md.
struct DiffCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "diff",
        abstract: "Replay a recording against the workbench's own actor and list where its answers differ from the recorded ones.",
        discussion: """
            The recording is turned into a scenario as 'workbench record --to-scenario' does and run on the simulated wire \
            (deterministic: the same seed gives the same replay). Each replayed answer is held against the recorded one: \
            its status, the headers that matter (Content-Type, WWW-Authenticate and Allow by value, Location and Set-Cookie \
            by presence) and each JSON field (ids, dates and tokens by their shape: string, number…). A difference is named \
            NNNN.status, NNNN.header.NAME or NNNN.json.PATH; one listed in DIR/known.differences (one 'NAME  # why' per \
            line, as 'workbench compare' reads) is shown as known, any other makes the exit status 1. --map-path FROM=TO \
            replays what was recorded under FROM under TO (a CUPS queue's /printers/NAME as a print actor's /ipp/print).
            """
    )

    @Argument(help: ArgumentHelp("The recording (a folder `workbench record --out` wrote).", valueName: "dir"))
    var folder: String

    @Option(help: ArgumentHelp("The actor kind to replay against (\(RecordCommand.kindNames)).", valueName: "kind"))
    var against: String

    @OptionGroup var seed: SeedOption

    @OptionGroup var signIn: SignInOption

    @OptionGroup var paths: PathMapOption

    func validate() throws {
        guard Catalog.servedKinds.contains(where: { $0.name == against }) else {
            throw ValidationError(
                "--against \(against): expected one of \(RecordCommand.kindNames)\(didYouMean(against, among: Catalog.servedKinds.map(\.name)))")
        }
    }

    func run() throws {
        let recording: Recording
        do { recording = try Recording(folder: folder) } catch { throw ExitStatus.inputWrong("\(error)") }
        let known: KnownDifferences
        do { known = try KnownDifferences(path: "\(folder)/known.differences") } catch { throw ExitStatus.inputWrong("\(error)") }
        guard let kind = Catalog.servedKinds.first(where: { $0.name == against }) else { return }
        let scenario = RecordingScenario(
            recording, kind: kind, account: Catalog.demoAccounts[against], signIn: signIn.signIn, known: KnownDifferences(),
            paths: try paths.mappings(for: recording), title: "\(URL(fileURLWithPath: folder).lastPathComponent) diffed against \(against)")
        let (script, errors) = Catalog.language.parse(file: "\(folder)/replay.scn", text: scenario.text)
        guard errors.isEmpty else {
            for error in errors { printError("replay.scn:\(error.line):\(error.column): error: \(error.message)") }
            throw ExitStatus.inputWrong("the replay of \(folder) does not parse (a bug of the conversion)")
        }
        let runner = ScenarioRunner(language: Catalog.language, catalog: Catalog.servedKinds)
        let replayed = runner.run(script, seed: seed.value, keepPublished: true) { _ in }
        let diff = RecordingDiff(scenario, replayed: replayed)

        print(
            "diff \(folder): \(recording.exchanges.count) exchanges recorded against \(recording.exchanges.first?.upstream ?? "?"), "
                + "replayed against \(against) (simulated, seed \(seed.value))")
        for (number, why) in scenario.leftOut { print("  not replayed, \(Recording.fileName(of: number)): \(why)") }
        let unexplained = known.report(
            diff.differences.map { ($0.name, "\($0.name): recorded \(Self.shown($0.recorded)), actor \(Self.shown($0.actor))") },
            agreeing: "the replay agrees with the recording")
        if let error = replayed.error { print("stopped: the replay: \(error)") }
        // A diff that compared nothing has shown nothing: it does not pass.
        guard !scenario.steps.isEmpty else {
            print("NOTHING COMPARED: none of the \(recording.exchanges.count) exchanges could be replayed")
            throw ExitStatus.checkFailed
        }
        print(
            "\(unexplained == 0 && replayed.error == nil ? "SAME" : "DIFFERENT") \(diff.comparedFields) fields of \(scenario.steps.count) "
                + "exchanges compared: \(diff.differences.count) differ"
                + (diff.differences.count > unexplained ? " (\(diff.differences.count - unexplained) known)" : "")
                + (scenario.leftOut.isEmpty ? "" : ", \(scenario.leftOut.count) not replayed"))
        if unexplained > 0 || replayed.error != nil { throw ExitStatus.checkFailed }
    }

    /// A value as a difference shows it: a status or shape bare, a JSON string with its quotes, on one line.
    static func shown(_ value: String?) -> String {
        guard let value else { return "(none)" }
        let line = value.count > 120 ? String(value.prefix(117)) + "…" : value
        return line.replacingOccurrences(of: "\n", with: "\\n")
    }
}
