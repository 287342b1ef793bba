import Wire

/// A neighbour of a fault: the same line with one of its fields drawn again (its direction turned round, its byte
/// count, duration, skew, count, deferral or the write a crash falls in drawn afresh within ``SwarmOptions``), the rest kept. Guided exploration
/// edits a likely cause this way, as a fuzzer changes one field of a structured input: a cut that fell in the wrong
/// message often needs only another byte count, or the other direction, to fall in the right one, where drawing the
/// whole fault again from its site would keep its kind one time in five.
///
/// It reads the lines ``SeededFaultSchedule`` writes; a field it does not know is never changed.
struct FaultTweak {
    /// What one tweak made: the new line, and which field changed.
    let line: String
    let field: String

    /// `line` with one of its fields (chosen by `random`) drawn again, nil when it has none. Not for a swizzle's holds,
    /// which belong together (their durations and deferrals are the swizzle's staggers).
    static func tweak(_ line: String, schedule: SeededFaultSchedule, random: RandomStream) -> FaultTweak? {
        let options = schedule.options
        var (later, words) = SeededFaultSchedule.words(of: line)
        guard let kind = words.first else { return nil }
        // Each field the line has: its name and how to draw it again (on `words`, the line without its deferral).
        var fields: [(name: String, draw: (inout [String]) -> Void)] = []
        func field(_ name: String, _ draw: @escaping (inout [String]) -> Void) { fields.append((name, draw)) }
        if kind == "partition" || kind == "hold" || kind == "fault" || (kind == "reset" && !words.contains("after")) {
            // Added when there is none; else another, or none, each half the time.
            let old = later.flatMap { Int($0.dropLast(2)) }
            field("deferral") { _ in
                let keep = old == nil || random.int(in: 0...1) == 0
                later = keep ? "\(Self.other(than: old, in: options.deferralMilliseconds, random))ms" : nil
            }
        }
        if let arrow = words.firstIndex(of: "->"), arrow > 0, arrow + 1 < words.count {
            field("direction") { $0.swapAt(arrow - 1, arrow + 1) }
        }
        if let after = words.firstIndex(of: "after"), after + 2 < words.count, words[after + 2] == "bytes", let bytes = Int(words[after + 1]) {
            field("byte count") { words in
                let drawn = SeededFaultSchedule.octaveUniform(random, in: options.resetAfterBytes)
                words[after + 1] = String(drawn != bytes ? drawn : bytes == options.resetAfterBytes.upperBound ? bytes - 1 : bytes + 1)
            }
        }
        if let span = words.firstIndex(of: "for"), span + 1 < words.count, words[span + 1].hasSuffix("s"), !words[span + 1].hasSuffix("ms"),
            let seconds = Int(words[span + 1].dropLast())
        {
            let range = kind == "partition" ? options.partitionSeconds : kind == "crash" ? options.crashDowntimeSeconds : options.holdSeconds
            field("duration") { $0[span + 1] = "\(Self.other(than: seconds, in: range, random))s" }
        }
        if kind == "crash", let at = words.firstIndex(of: "at"), at + 2 < words.count, words[at + 1] == "write", let write = Int(words[at + 2]) {
            field("write") { $0[at + 2] = String(Self.other(than: write, in: options.crashWrites, random)) }
        }
        if kind == "clock", let skew = words.firstIndex(of: "skew"), skew + 1 < words.count, let sign = words[skew + 1].first,
            let seconds = Int(words[skew + 1].dropFirst().dropLast())
        {
            field("skew's sign") { $0[skew + 1] = (sign == "-" ? "+" : "-") + "\(seconds)s" }
            field("skew") { $0[skew + 1] = "\(sign)\(Self.other(than: seconds, in: options.clockSkewSeconds, random))s" }
        }
        if let times = words.firstIndex(of: "times"), times + 1 < words.count, let count = Int(words[times + 1]),
            options.faultPointTimes.count > 1
        {
            field("count") { $0[times + 1] = String(Self.other(than: count, in: options.faultPointTimes, random)) }
        }
        if let latency = words.firstIndex(of: "latency") {
            let old = words[(latency + 1)...].joined(separator: " ")
            field("latency") { words in
                // Another distribution or other parameters: two equal draws in a row are rare, eight never happen.
                var drawn = schedule.latency(random)
                for _ in 0..<8 where drawn == old { drawn = schedule.latency(random) }
                words = Array(words[...latency]) + drawn.split(separator: " ").map(String.init)
            }
        }
        guard !fields.isEmpty else { return nil }
        let chosen = fields[random.int(in: 0...(fields.count - 1))]
        chosen.draw(&words)
        return FaultTweak(line: (later.map { "later \($0) " } ?? "") + words.joined(separator: " "), field: chosen.name)
    }

    /// Another step of the clock `line` steps (`clock HOST skew ±Ns`), the same way, its size drawn octave by octave
    /// from a second up to the widest reach a mix allows (``SwarmMix/ClockReach/hours``). A behaviour that tells how
    /// close a check came to refusing (`ims session-checked margin=1-5m`) was moved there by such a step, so one more in
    /// the same direction, just before the check, is the likeliest to cross the edge — the value profile's comparison
    /// pushed, as a fuzzer pushes an operand it saw compared. Nil for any other line.
    static func stepAgain(_ line: String, options: SwarmOptions, random: RandomStream) -> FaultTweak? {
        let words = SeededFaultSchedule.words(of: line).words
        guard words.count == 4, words[0] == "clock", words[2] == "skew", let sign = words[3].first, sign == "+" || sign == "-",
            Int(words[3].dropFirst().dropLast()) != nil
        else { return nil }
        let widest = options.clockSkewSeconds.upperBound * (SwarmMix.ClockReach.allCases.map(\.factor).max() ?? 1)
        let seconds = SeededFaultSchedule.octaveUniform(random, in: 1...widest)
        return FaultTweak(line: "clock \(words[1]) skew \(sign)\(seconds)s", field: "skew, again")
    }

    /// A value of `range` other than `old` (any value of it when `old` is none or outside it), each as likely.
    private static func other(than old: Int?, in range: ClosedRange<Int>, _ random: RandomStream) -> Int {
        guard let old, range.contains(old), range.count > 1 else { return random.int(in: range) }
        let drawn = random.int(in: range.lowerBound...(range.upperBound - 1))
        return drawn < old ? drawn : drawn + 1
    }
}
