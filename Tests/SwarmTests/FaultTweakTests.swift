import Scenario
import Testing
import Wire

@testable import Swarm

/// A tweak draws one field of a fault line again and keeps the rest: every field of every kind of line the seeds
/// draw, each changed alone, and the result a line the scenario language runs.
@Suite struct FaultTweakTests {
    let schedule = SeededFaultSchedule(options: SwarmOptions(faults: .all), seed: 7)

    /// The fields a line's tweaks changed over many draws, and every tweaked line.
    func tweaks(of line: String) -> (fields: Set<String>, lines: [String]) {
        var fields: Set<String> = []
        var lines: [String] = []
        for draw in 0..<200 {
            guard let tweak = FaultTweak.tweak(line, schedule: schedule, random: RandomStream(seed: 1, name: "tweak \(draw)")) else { continue }
            fields.insert(tweak.field)
            lines.append(tweak.line)
        }
        return (fields, lines)
    }

    @Test(arguments: [
        ("reset proxy -> phone after 3409 bytes", ["direction", "byte count"]),
        ("later 120ms partition a <-> b for 12s", ["deferral", "duration"]),
        ("partition a -> b for 3s", ["deferral", "direction", "duration"]),
        ("hold b -> a for 4s", ["deferral", "direction", "duration"]),
        ("reset a <-> b", ["deferral"]),
        ("later 7ms fault scpms.store-write times 1", ["deferral", "count"]),
        ("clock phone skew -30s", ["skew's sign", "skew"]),
        ("link a <-> b latency normal 40ms 10ms", ["latency"]),
    ])
    func eachFieldIsDrawnAgainAlone(line: String, expected: [String]) throws {
        let (fields, lines) = tweaks(of: line)
        #expect(fields == Set(expected), "\(line)")
        let language = ScenarioLanguage()
        let words = line.split(separator: " ")
        for tweaked in lines {
            #expect(tweaked != line, "a tweak changes the line")
            // One field changed: the direction swaps two words, the deferral adds or removes two, any other changes one
            // word (a latency its distribution's words).
            let changed = zip(words, tweaked.split(separator: " ")).filter { $0 != $1 }.count
            #expect(changed <= 2 || line.contains("latency") || line.hasPrefix("later") != tweaked.hasPrefix("later"), "\(line) -> \(tweaked)")
            #expect(throws: Never.self, "\(tweaked) parses") { _ = try language.parse(line: tweaked, file: "t", lineNumber: 1) }
        }
        // The direction turned round keeps the link: the fault still has its site.
        if expected.contains("direction") { #expect(lines.contains { $0.contains("\(words[words.firstIndex(of: "->")! + 1]) -> ") }) }
    }

    @Test func aCountIsDrawnWithinItsRangeAndOtherThanItWas() {
        let (_, lines) = tweaks(of: "fault scpms.store-write times 1")
        let counts = Set(lines.compactMap { $0.hasPrefix("fault") ? $0.split(separator: " ").last.flatMap { Int($0) } : nil })
        #expect(counts == [2, 3], "\(counts)")
    }

    /// Another step of a clock keeps the direction of the one it follows, on every scale (octave by octave) up to the
    /// hours reach a drawn mix allows; any other line has none.
    @Test func aClockIsSteppedAgainTheSameWay() throws {
        let options = SwarmOptions(faults: .all)
        let widest = options.clockSkewSeconds.upperBound * SwarmMix.ClockReach.hours.factor
        var pastFiveMinutes = 0
        for draw in 0..<200 {
            let random = RandomStream(seed: 1, name: "again \(draw)")
            let again = try #require(FaultTweak.stepAgain("later 5ms clock ims skew +306s", options: options, random: random))
            let seconds = try #require(Int(again.line.split(separator: " ").last!.dropFirst().dropLast()))
            #expect(again.line.hasPrefix("clock ims skew +") && (1...widest).contains(seconds), "\(again.line)")
            if seconds > 300 { pastFiveMinutes += 1 }
            let behind = try #require(FaultTweak.stepAgain("clock phone skew -30s", options: options, random: random))
            #expect(behind.line.hasPrefix("clock phone skew -"), "\(behind.line)")
        }
        #expect(pastFiveMinutes > 40 && pastFiveMinutes < 120, "\(pastFiveMinutes) of 200 past 5 minutes")
        #expect(FaultTweak.stepAgain("hold a -> b for 4s", options: options, random: RandomStream(seed: 1, name: "x")) == nil)
    }
}
