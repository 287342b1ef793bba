import Foundation
import ArgumentParser
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

    @Option(help: "The generator's seed.")
    var seed: UInt64 = 1

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
        let language = Catalog.language
        let runner = ScenarioRunner(language: language, catalog: Catalog.actorKinds)
        let generator = ScenarioLineGenerator(language: language, random: RandomStream(seed: seed, name: "fuzz-scenario"))
        var parsed = 0, accepted = 0, executed = 0, stepErrors = 0
        var world = ScenarioContext(kernel: Kernel(seed: seed), catalog: Catalog.actorKinds, file: "fuzz.scn") { _ in }
        var worldUse = 0
        for index in 0..<runs {
            let line = generator.line()
            parsed += 1
            guard let statement = try? language.parse(line: line, file: "fuzz.scn", lineNumber: index + 1) else { continue }
            accepted += 1
            guard runEvery > 0, accepted % runEvery == 0, !generator.namesLongTime(line) else { continue }
            if worldUse >= worldLines {
                world = ScenarioContext(kernel: Kernel(seed: seed &+ UInt64(index)), catalog: Catalog.actorKinds, file: "fuzz.scn") { _ in }
                worldUse = 0
            }
            worldUse += 1
            executed += 1
            do { try runner.execute(statement, in: world) } catch { stepErrors += 1 }
        }
        print("fuzz-scenario seed=\(seed) lines=\(parsed) accepted=\(accepted) run=\(executed) step-errors=\(stepErrors) traps=0")
    }
}

/// Builds scenario lines from the language's own vocabulary and values chosen to break number handling.
struct ScenarioLineGenerator {
    let words: [String]
    let directives: [String]
    /// Each directive's usage, split into words (`[`, `]`, `|`, `…` removed): the shape of a plausible line.
    let usages: [[String]]
    let random: RandomStream

    init(language: ScenarioLanguage, random: RandomStream) {
        self.random = random
        directives = language.directives.map(\.name) + ["spawn", "join", "later"]
        usages = language.directives.map { directive in
            directive.usage.replacingOccurrences(of: "[", with: " ").replacingOccurrences(of: "]", with: " ")
                .replacingOccurrences(of: "…", with: " ").split(separator: " ").map(String.init).filter { $0 != "|" && $0 != "/" }
        }
        var vocabulary = Set(language.directives.flatMap(\.keywords))
        for directive in language.directives {
            for word in directive.usage.split(separator: " ") where word.allSatisfy({ $0.isLowercase || $0 == "-" }) {
                vocabulary.insert(String(word))
            }
        }
        for kind in Catalog.actorKinds {
            vocabulary.insert(kind.name)
            for option in kind.options { vocabulary.insert(option.name + "=") }
        }
        words = vocabulary.sorted()
    }

    /// Values at and past every boundary a parser might convert without checking; the systems add theirs
    /// (``FuzzSamples/hostile``).
    static let hostile = [
        "0", "-1", "1", "2", "8", "65535", "65536", "70000", "99999", "2147483647", "2147483648", "4294967296",
        "9223372036854775807", "9223372036854775808", "-9223372036854775809", "99999999999999999999999999", "1e308",
        "nan", "inf", "-0", "0x10", "1.5", ".", "", "3000000h", "87600h", "87601h", "1e400s", "2562047h", "9223372036854775807ns",
        "-5s", "1h30m", "0.000001ns", "250ms", "10s", "5m", "1.7976931348623157e308h", "0B/s", "1e30GB/s", "10Mbit/s",
        "999999999999GB/s", "1MB/s", ":80", "host:", "a:b:c", "http://[::1]:80/", "http://:80/", "port=70000",
        "2-6", "6-2", "0-3", "1-99999999999", "${x}", "${", "${a.b}", "\"unterminated", "\"a\\qb\"", "\"\\x4\"", "\"\\xZZ\"",
        "\"é ü 中\"", "#", "->", "<->", "..", "10ms..5ms", "1ms..99999h", "yes", "no", "on", "off", "once", "chance", "1.0001",
    ] + Catalog.fuzzSamples.hostile

    /// Plausible values for a usage placeholder, by what its name suggests.
    static func plausible(for placeholder: String) -> [String] {
        let samples = Catalog.fuzzSamples
        switch placeholder {
        case let p where p.contains("DURATION") || p == "D" || p.contains("DELAY") || p == "MEAN" || p == "DEV": return ["1s", "250ms", "2m", "0s"]
        case let p where p.contains(":PORT") && !samples.addresses.isEmpty: return samples.addresses
        case let p where p.contains("URL") && !samples.urls.isEmpty: return samples.urls
        case "N", "BYTES", "COUNT", "P": return ["1", "2", "0.5", "100"]
        case let p where p.contains("RATE"): return ["1MB/s", "56kbit/s"]
        case "A", "B", "NODE", "HOST", "NAME", "KIND", "ACTOR", "MARK", "EVENT", "POINT": return ["phone"] + samples.nodes + ["r", "x"]
        default: return ["\"text\"", "x", "${r.status}", "200"]
        }
    }

    /// A line shaped by a directive's usage: keywords kept or dropped, placeholders filled with plausible or
    /// hostile values; or a directive followed by random words.
    func line() -> String {
        if random.int(in: 0...1) == 0, let usage = usages.isEmpty ? nil : usages[random.int(in: 0...(usages.count - 1))] {
            var parts = [usage[0]]
            for word in usage.dropFirst() {
                let isPlaceholder = word.contains { $0.isUppercase }
                if isPlaceholder {
                    parts.append(random.int(in: 0...2) == 0 ? pick(Self.hostile) : pick(Self.plausible(for: word)))
                } else if random.int(in: 0...3) != 0 {
                    parts.append(word)
                }
            }
            return parts.joined(separator: " ")
        }
        var parts: [String] = []
        if random.int(in: 0...19) == 0 {
            parts.append(pick(words + Self.hostile))
        } else {
            parts.append(pick(directives))
        }
        for _ in 0..<random.int(in: 0...8) {
            switch random.int(in: 0...9) {
            case 0...3: parts.append(pick(words))
            case 4...7: parts.append(pick(Self.hostile))
            case 8: parts.append(pick(words) + pick(Self.hostile))
            default: parts.append(String(random.int(in: -3...70_000)))
            }
        }
        return parts.joined(separator: random.int(in: 0...9) == 0 ? "\t" : " ")
    }

    /// Whether a word of the line is a duration longer than an hour (running it would only simulate idle time).
    func namesLongTime(_ line: String) -> Bool {
        line.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "=" || $0 == "." }).contains { word in
            DurationParser.parse(String(word)).map { $0 > .seconds(3_600) } ?? false
        }
    }

    private func pick(_ list: [String]) -> String { list[random.int(in: 0...(list.count - 1))] }
}
