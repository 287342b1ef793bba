import Kernel
import Scenario
import SystemKit

// MARK: - `history` and `rewind`

extension ConsoleSession {
    /// The lines a rewind would replay, with the virtual time and the trace events each one spans.
    func history() -> String {
        guard !played.isEmpty else { return "no line has acted on the world yet" }
        return played.map { line in
            let events =
                switch line.lastEvent - line.firstEvent {
                case ..<0: "no events"
                case 0: "event #\(line.firstEvent)"
                default: "events #\(line.firstEvent)–#\(line.lastEvent)"
                }
            // Numbered as typed: a line the console wrote for one typed (a `rewind to`'s advance) says which.
            return "  line \(line.number)  t=\(line.startedAt.workbenchText)–\(line.endedAt.workbenchText)  \(events)  \(line.text)"
                + (line.typed.map { "  (for '\($0)')" } ?? "")
        }.joined(separator: "\n")
    }

    /// `rewind N` (an event number from `show trace`) or `rewind to DURATION`: a new world under the same seed,
    /// the lines so far replayed into it up to that point, and the session goes on from there (a branch).
    ///
    /// Lines run whole, so an event in the middle of a line rewinds to just before that line. `rewind to` replays
    /// the lines that had finished by then and then lets the world run to that very moment, as `advance` would.
    func rewind(_ line: String) -> Outcome {
        let words = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init).dropFirst()
        let usage = "usage: rewind N (an event number from 'show trace') | rewind to DURATION (a virtual time like 1m30s)"
        func refuse(_ message: String) -> Outcome {
            write("error: \(message)")
            return .failed(ExitStatus.scenarioWrong)
        }
        let keep: Int
        var target: Duration?
        switch (words.first, words.count) {
        case ("to", 2):
            let text = words.last!
            guard let time = DurationParser.parse(text), time >= .zero else {
                return refuse("expected a virtual time like 250ms or 1m30s after 'rewind to', found '\(text)'")
            }
            guard time <= kernel.now else {
                return refuse("t=\(time.workbenchText) is after now (t=\(kernel.now.workbenchText)): rewind goes back; 'advance' goes forward")
            }
            keep = played.prefix { $0.endedAt <= time }.count
            target = time
        case (let number?, 1):
            guard let event = Int(number), event >= 0 else {
                return refuse("expected an event number (0 for the empty world), found '\(number)'; \(usage)")
            }
            guard event <= kernel.trace.count else {
                return refuse("there is no event #\(event): the trace has \(kernel.trace.count) events ('show trace' numbers them)")
            }
            keep = played.prefix { $0.lastEvent <= event }.count
            if keep < played.count, played[keep].firstEvent <= event {
                write(
                    "event #\(event) was recorded during line \(played[keep].number) (\(played[keep].text)); lines run whole, "
                        + "so the world goes back to just before it")
            }
        default:
            return refuse(usage)
        }
        let lines = Array(played.prefix(keep))
        replay(lines)
        if let last = lines.last, kernel.trace.digest != last.digest {
            // Same seed, same lines, same build: a different trace is a determinism bug, and the branch cannot be trusted.
            write("warning: the replay diverged from the first run after line \(last.number) (digest \(kernel.trace.digest), was \(last.digest))")
            return .failed(ExitStatus.checkFailed)
        }
        var advanced = ""
        if let target, kernel.now < target {
            // As a line of its own, so that a later rewind replays it too and reaches the same world.
            let advance = "advance \((target - kernel.now).workbenchText)"
            _ = replayLine(PlayedLine(text: advance, number: lineNumber, typed: String(line.drop { $0 == " " || $0 == "\t" })))
            advanced = ", then \(advance)"
        }
        write(
            "rewound to t=\(kernel.now.workbenchText), event #\(kernel.trace.count): replayed \(lines.count) of the "
                + "lines so far (seed \(seed))\(advanced); what you type now branches from here")
        return .proceed
    }

    /// Starts a new world under the same seed and runs `lines` into it again, quietly.
    private func replay(_ lines: [PlayedLine]) {
        resetWorld()
        for line in lines {
            _ = replayLine(line)
        }
    }
}
