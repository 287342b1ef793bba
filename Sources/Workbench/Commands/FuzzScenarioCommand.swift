import ArgumentParser
import Foundation
import Kernel
import Scenario
import Wire

/// `workbench fuzz-scenario`: feeds generated scenario lines to the parser and runner and proves that no line
/// a user could type traps the process — out-of-range numbers, huge durations, bad ports, typos, broken quotes.
///
/// Lines are built from the language's own words (directive names, keywords, actor options) mixed with
/// hostile values, from a seeded stream, so a run is repeatable. Every line is parsed; every line that parses
/// is also run, in a world that is replaced every `--world-lines` lines — except lines naming more than an hour
/// of virtual time, which would spend their time simulating idle actors rather than finding traps. A trap ends
/// the process (that is the failure); an error is the expected outcome of most lines.
struct FuzzScenarioCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fuzz-scenario",
        abstract: "Parse and run generated scenario lines; a trap is a bug.",
        discussion: "Prints how many lines were parsed, accepted and run. tools/fuzz-scenario.sh runs ten million.")

    @Option(help: "How many lines to generate (1…1000000000).")
    var runs = 100_000

    @OptionGroup var seed: SeedOption

    @Option(help: "Run every N-th accepted line in the world (0: parse only; 1…1000000).")
    var runEvery = 1

    @Option(help: "Lines run in one world before a fresh one is made (1…100000).")
    var worldLines = 200

    func validate() throws {
        guard (1...1_000_000_000).contains(runs) else { throw ValidationError("--runs \(runs): expected 1…1000000000") }
        guard (0...1_000_000).contains(runEvery) else { throw ValidationError("--run-every \(runEvery): expected 0…1000000") }
        guard (1...100_000).contains(worldLines) else { throw ValidationError("--world-lines \(worldLines): expected 1…100000") }
    }

    func run() throws {
        let seed = self.seed.value
        let language = Catalog.language
        let generator = ScenarioLineGenerator(language: language, random: RandomStream(seed: seed, name: "fuzz-scenario"))
        var parsed = 0
        var accepted = 0
        var executed = 0
        var stepErrors = 0
        func world(_ seed: UInt64) -> StatementExecutor {
            let context = ScenarioContext(kernel: Kernel(seed: seed), catalog: Catalog.actorKinds, file: "fuzz.scn") { _ in }
            return StatementExecutor(context: context, language: language, invariants: [], reach: nil)
        }
        var executor = world(seed)
        var worldUse = 0
        for index in 0..<runs {
            let line = generator.line()
            parsed += 1
            guard let statement = try? language.parse(line: line, file: "fuzz.scn", lineNumber: index + 1) else { continue }
            accepted += 1
            guard runEvery > 0, accepted % runEvery == 0, !generator.namesLongTime(line) else { continue }
            if worldUse >= worldLines {
                executor = world(seed &+ UInt64(index))
                worldUse = 0
            }
            worldUse += 1
            executed += 1
            if executor.execute(statement).error != nil { stepErrors += 1 }
        }
        print("fuzz-scenario seed=\(seed) lines=\(parsed) accepted=\(accepted) run=\(executed) step-errors=\(stepErrors) traps=0")
    }
}
