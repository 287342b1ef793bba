import Kernel
import Scenario
import Testing
import Wire

@testable import Swarm

/// Where guided exploration aims a cut: at one of the messages a direction sent, whatever its size, counted from the
/// statement the reset is armed before.
@Suite struct LinkForecastTests {
    /// `a` sends 100 bytes in statement 0, 300 and 20 in statement 2, 50 in statement 4; `b` answers 40 in statement 2.
    let forecast = LinkForecast(
        firstUse: [:],
        sent: [
            .init(from: "a", to: "b"): [
                .init(statement: 0, bytes: 100), .init(statement: 2, bytes: 300), .init(statement: 2, bytes: 20), .init(statement: 4, bytes: 50),
            ],
            .init(from: "b", to: "a"): [.init(statement: 2, bytes: 40)],
        ])

    @Test func aCutFallsInOneOfTheWindowsMessagesArmedBeforeTheStatementThatSentIt() throws {
        var counts: [Int: Int] = [:]
        for draw in 0..<400 {
            let random = RandomStream(seed: 7, name: "cut \(draw)")
            let cut = try #require(forecast.cut(from: "a", to: "b", within: 1...3, random: random))
            // Armed before statement 2: the 100 bytes of statement 0 are not counted.
            #expect(cut.armed == 2)
            switch cut.message {
            case 1: #expect((1...300).contains(cut.bytes), "in the 300-byte message: \(cut.bytes)")
            case 2: #expect((301...320).contains(cut.bytes), "in the 20-byte message: \(cut.bytes)")
            default: Issue.record("message \(cut.message) was not sent in statement 2")
            }
            counts[cut.bytes, default: 0] += 1
        }
        // Each message as likely whatever its size, and half the time on its last byte (it arrives whole).
        let inFirst = counts.filter { $0.key <= 300 }.values.reduce(0, +)
        #expect((150...250).contains(inFirst), "\(inFirst) of 400 in the first of two messages")
        #expect((60...140).contains(counts[300] ?? 0) && (60...140).contains(counts[320] ?? 0), "whole: \(counts[300] ?? 0), \(counts[320] ?? 0)")
        #expect(counts.keys.contains { $0 < 300 } && counts.keys.contains { (301..<320).contains($0) }, "and inside them")
        let last = try #require(forecast.cut(from: "a", to: "b", within: 4...9, random: RandomStream(seed: 7, name: "cut")))
        #expect(last.armed == 4 && (1...50).contains(last.bytes) && last.message == 1)
    }

    @Test func aCutNeedsAMessageInItsWindow() {
        let random = RandomStream(seed: 7, name: "cut")
        #expect(forecast.cut(from: "a", to: "b", within: 1...1, random: random) == nil, "a sent nothing in statement 1")
        #expect(forecast.cut(from: "b", to: "c", within: 0...9, random: random) == nil, "b never sent c anything")
        #expect(forecast.directions(sendingIn: 2...3).map { "\($0.0)->\($0.1)" } == ["a->b", "b->a"])
        #expect(forecast.directions(sendingIn: 3...4).map { "\($0.0)->\($0.1)" } == ["a->b"])
        #expect(forecast.directions(sendingIn: 5...9).isEmpty)
    }
}
