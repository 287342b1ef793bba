import Foundation
import Kernel
import Scenario
import SystemKit
import Wire

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
    static let hostile =
        [
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
        case "A", "B", "NODE", "HOST", "NAME", "KIND", "ACTOR", "MARK", "POINT": return ["phone"] + samples.nodes + ["r", "x"]
        // Events the systems record, so that trace lines pass the parser and run, and one no system records.
        case "EVENT": return ["started", "connect", "http-response", "fault-fired", "job-completed", "x"]
        // Keys some of those events carry, and one none does.
        case "FIELD=VALUE": return ["status=200", "point=x", "job=1", "x=1"]
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
