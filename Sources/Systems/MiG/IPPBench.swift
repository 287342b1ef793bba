import ArgumentParser
import Foundation
import IPP
import JSONEscaping
import SystemKit

/// `workbench bench ipp`: the IPP codec next to libcups, measured on the same messages in one run.
///
/// Four figures for our codec, two for libcups, all with one method: the batch size doubles until a batch
/// takes `--batch-ms`, then `--rounds` batches are timed with the monotonic clock and the median counts.
/// Allocations per message come from a second run of each side with the counting allocator
/// tools/libcups-bench/malloc_count.so preloaded, so that counting does not skew the timings.
public struct IPPBench: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "ipp",
        abstract: "IPP decode and encode speed next to libcups, like for like, on captured messages.",
        discussion: """
            What each figure does, per message:
              decode         ours: check the message (lengths, nesting, UTF-8 of every name and string) and index
                             it, in one buffer with its bytes (values stay in wire form, read on demand), into
                             one message kept across the loop as a server keeps one per connection
                             (decode(_:into:) reuses its buffer: no allocation once the buffer is big enough).
              decode_fresh   ours: decode, each message into a new one (decode(_:): one allocation, one free), as a
                             caller that keeps no message does; shown so that the reuse's share can be read.
              decode_tree    ours: decode, then walk every attribute's name and every value as its typed view
                             (group.attributeSpans, each value an IPPValueSpan: the cases of IPPValueView, but
                             non-escapable, so that reading holds no reference to the buffer): integers, enums,
                             booleans, dates, resolutions and ranges parsed from the wire, strings as checked
                             byte ranges whose lengths are read, octet strings as byte ranges, collections walked
                             member by member, recursively. That is what ippReadIO leaves a C caller holding:
                             typed values, strings as char* into memory it owns, here the message's buffer (the
                             UTF-8 check is part of decode). Owned Swift values (IPPAttribute.values: Strings,
                             arrays) are made only on demand and not timed here.
              libcups_read   ippNew + ippReadIO + ippDelete: libcups builds and frees the whole attribute tree.
              encode         ours: encode a decoded message (its wire form is copied).
              encode_built   ours: build the message from typed values with its own adders (addGroup(_:), then
                             one add(_:values:) per attribute, adding to the end of the message as ippAdd* do;
                             the values are held in one array, each attribute's run passed as a borrowed span,
                             as the C harness's attributes point to theirs), then encode it. The
                             message and the output buffer are kept across the loop, as a server keeps them per
                             connection (libcups_build_write's ippWriteIO writes into one buffer too):
                             removeAllGroups(keepingCapacity: true) empties the message keeping its buffer,
                             encode(_:into:) appends to the emptied output (no allocation once both are big
                             enough).
              libcups_write  ippWriteIO of a tree already built: serialisation only.
              libcups_build_write
                             ippNew, one ippAdd* call per attribute from typed values held in C arrays (strings,
                             integers, ranges, resolutions, dates, octet strings, collections built the same way,
                             out-of-band values, separators), ippWriteIO into memory, ippDelete; its bytes are
                             checked against the input.
            Like for like: decode_tree vs libcups_read, encode_built vs libcups_build_write, encode vs
            libcups_write. The lazy decode is shown against libcups_read too, as what a server that reads a few
            attributes pays.
            Targets (release build), on both messages: decode_tree >= 5x libcups_read on the large response and
            >= 3x on the small request; encode_built >= 3x libcups_build_write; decode >= 10x libcups_read.
            The libcups harness (tools/libcups-bench/ipp_bench.c) is compiled with cc against libcups2-dev,
            which tools/setup.sh installs. An error in any timed loop stops the bench.
            --only FIGURE times one of our figures (no libcups, no targets); with --flamegraph FILE.svg it is
            recorded under perf record -g (Debian's linux-perf) and drawn as a self-contained SVG flame graph.
            --check exits 1 when a target is missed.
            """)

    @Option(name: .long, help: "An IPP message file; repeat for several. Default: the large and the small fixture.")
    var input: [String] = []

    @Flag(name: .long, help: "Print one JSON object instead of a table.")
    var json = false

    @Option(name: .long, help: "Timed rounds per figure (1…1000); the median is reported.")
    var rounds = 7

    @Option(name: .long, help: "Target duration of one timed batch, in milliseconds (1…60000).")
    var batchMs = 40

    @Flag(name: .long, help: "Skip the libcups peer (no C compiler or libcups2-dev here).")
    var noLibcups = false

    @Option(
        name: .long,
        help: "Time only this figure (decode, decode_fresh, decode_tree, encode, encode_built) and skip libcups: for profiling with perf.")
    var only: Work?

    @OptionGroup var flame: FlameGraphOption

    @OptionGroup var check: BenchCheckOption

    /// Set on the child run that counts allocations with malloc_count.so preloaded.
    @Flag(name: .long, help: .hidden)
    var allocationsOnly = false

    public func validate() throws {
        guard (1...1_000).contains(rounds) else { throw ValidationError("--rounds \(rounds): expected 1…1000") }
        guard (1...60_000).contains(batchMs) else { throw ValidationError("--batch-ms \(batchMs): expected 1…60000") }
        try flame.validate(only: only?.rawValue, figures: Work.allCases.map(\.rawValue))
    }

    public init() {}

    /// The two messages the targets are set on: ippeveprinter's Get-Printer-Attributes response (9,145 bytes)
    /// and the Get-Printer-Attributes request (169 bytes).
    static let defaultInputs = [
        ("large response", "ipp/get-printer-attributes-01-get-printer-attributes-response.ipp"),
        ("small request", "ipp/get-printer-attributes-01-get-printer-attributes-request.ipp"),
    ]

    public func run() throws {
        if let file = flame.flamegraph, let only {
            let arguments =
                ["bench", "ipp", "--only", only.rawValue, "--rounds", "\(rounds)", "--batch-ms", "\(batchMs)"]
                + input.flatMap { ["--input", $0] } + (json ? ["--json"] : [])
            let recorded = try FlameGraphRecording.record(
                arguments, callGraph: flame.callGraph, title: "workbench bench ipp: \(only.rawValue)", to: file)
            print(recorded.output, terminator: "")
            printError("flame graph of \(only.rawValue): \(file) (\(recorded.samples) samples)")
            return try check.finish([])
        }
        let subjects = try loadSubjects()
        if allocationsOnly {
            guard let counter = Self.allocationCounter else {
                throw ValidationError("--allocations-only needs tools/libcups-bench/malloc_count.so preloaded (LD_PRELOAD)")
            }
            let counts = try subjects.map { try Self.allocations($0, counter: counter) }
            print("[" + counts.map { "[" + $0.map { String($0) }.joined(separator: ",") + "]" }.joined(separator: ",") + "]")
            return
        }
        var results = try subjects.map { try measure($0) }
        let harness = noLibcups || only != nil ? nil : try LibcupsHarness.build()
        defer { harness?.remove() }
        try countAllocations(into: &results, harness: harness)
        if let harness {
            for index in results.indices { results[index].libcups = try harness.run(results[index].subject.path) }
        }
        let targets = targets(results)
        print(json ? jsonReport(results, targets: targets) : textReport(results, targets: targets))
        try check.finish(targets)
    }

    // MARK: Subjects

    /// One message, decoded once, and its attributes as typed values (the tree `encode_built` starts from).
    struct Subject {
        var label: String
        var path: String
        var bytes: [UInt8]
        var message: IPPMessage
        var tree: TypedMessage
        /// Whether building the typed values gives back the input's bytes (so both encoders write the same).
        var builtReproducesInput: Bool
    }

    /// A message as typed values: what a program holds before it encodes. Like the libcups harness's specs, each
    /// attribute refers to its values rather than owning an array of them: they are one run of `values`.
    struct TypedMessage {
        var version: IPPVersion
        var code: UInt16
        var requestID: Int32
        var groups: [(tag: IPPGroupTag, attributes: Range<Int>)]
        var attributes: [(name: String, values: Range<Int>)]
        var values: [IPPValue]

        init(_ message: IPPMessage) {
            version = message.version
            code = message.code
            requestID = message.requestID
            groups = []
            attributes = []
            values = []
            for group in message.groups {
                let first = attributes.count
                for attribute in group {
                    let start = values.count
                    values += attribute.values
                    attributes.append((attribute.name, start..<values.count))
                }
                groups.append((group.tag, first..<attributes.count))
            }
        }

        /// Builds the message with the public builders.
        func build() -> IPPMessage {
            var message = IPPMessage(code: 0, requestID: 0)
            build(into: &message)
            return message
        }

        /// Builds the message into `message`, emptied first keeping its buffer (`removeAllGroups(keepingCapacity:)`),
        /// with the message's own adders: `addGroup(_:)`, then `add(_:values:)` to that group (as libcups' ippAdd*),
        /// each attribute's values passed as a span of its run, borrowed (an array per attribute would be retained
        /// and released for each call, a fifth of building the small request).
        func build(into message: inout IPPMessage) {
            message.removeAllGroups(keepingCapacity: true)
            message.version = version
            message.code = code
            message.requestID = requestID
            let values = self.values.span
            for group in groups.indices {
                message.addGroup(groups[group].tag)
                for index in groups[group].attributes {
                    message.add(attributes[index].name, values: values.extracting(attributes[index].values))
                }
            }
        }
    }

    private func loadSubjects() throws -> [Subject] {
        let named: [(String, String)] =
            input.isEmpty
            ? try Self.defaultInputs.map { ($0.0, try Fixtures.path($0.1)) }
            : input.map { ($0, $0) }
        return try named.map { label, path in
            guard let bytes = FileManager.default.contents(atPath: path).map(Array.init) else {
                throw ExitStatus.inputWrong("cannot read \(path)")
            }
            let message: IPPMessage
            do {
                message = try IPPDecoder().decode(bytes)
            } catch {
                throw ExitStatus.inputWrong("\(path): not an IPP message our decoder accepts: \(error)")
            }
            let tree = TypedMessage(message)
            let rebuilt = try? IPPEncoder().encode(tree.build())
            return Subject(
                label: label, path: path, bytes: bytes, message: message, tree: tree,
                builtReproducesInput: rebuilt.map { bytes.starts(with: $0) && $0.count == message.encodedSize } ?? false)
        }
    }

    // MARK: The timed work

    /// The four workloads, each `count` times; any error ends the bench.
    enum Work: String, CaseIterable, ExpressibleByArgument {
        case decode
        case decodeFresh = "decode_fresh"
        case decodeTree = "decode_tree"
        case encode
        case encodeBuilt = "encode_built"

        // Each workload's loop is a function of its own, compiled alone: in one function, the optimiser's choices
        // for one loop changed with the code of the others (decode_tree was 40 % slower once decode's loop changed).
        func run(_ subject: Subject, count: Int) throws -> Int {
            switch self {
            case .decode: try Self.decode(subject, count: count)
            case .decodeFresh: try Self.decodeFresh(subject, count: count)
            case .decodeTree: try Self.decodeTree(subject, count: count)
            case .encode: try Self.encode(subject, count: count)
            case .encodeBuilt: try Self.encodeBuilt(subject, count: count)
            }
        }

        /// One message for the loop, as a server keeps one per connection: decode(_:into:) reuses its buffer.
        @inline(never)
        static func decode(_ subject: Subject, count: Int) throws -> Int {
            var sink = 0
            var message = IPPMessage(code: 0, requestID: 0)
            for _ in 0..<count {
                try IPPDecoder().decode(subject.bytes, into: &message)
                sink &+= message.groupCount
            }
            return sink
        }

        @inline(never)
        static func decodeFresh(_ subject: Subject, count: Int) throws -> Int {
            var sink = 0
            for _ in 0..<count { sink &+= try IPPDecoder().decode(subject.bytes).groupCount }
            return sink
        }

        @inline(never)
        static func decodeTree(_ subject: Subject, count: Int) throws -> Int {
            var sink = 0
            for _ in 0..<count {
                let message = try IPPDecoder().decode(subject.bytes)
                for group in message.groups {
                    var attributes = group.attributeSpans
                    while let attribute = attributes.next() {
                        sink &+= attribute.name.utf8Count
                        var values = attribute.values
                        while let value = values.next() { sink &+= Self.touch(value) }
                    }
                }
            }
            return sink
        }

        @inline(never)
        static func encode(_ subject: Subject, count: Int) throws -> Int {
            var sink = 0
            for _ in 0..<count { sink &+= try IPPEncoder().encode(subject.message).count }
            return sink
        }

        /// One message and one output buffer for the loop, as a server keeps them per connection (libcups_build_write's
        /// ippWriteIO writes into one buffer too): the message is emptied keeping its buffer, built, and encoded.
        @inline(never)
        static func encodeBuilt(_ subject: Subject, count: Int) throws -> Int {
            var sink = 0
            var message = IPPMessage(code: 0, requestID: 0)
            var output: [UInt8] = []
            for _ in 0..<count {
                subject.tree.build(into: &message)
                output.removeAll(keepingCapacity: true)
                try IPPEncoder().encode(message, into: &output)
                sink &+= output.count
            }
            return sink
        }

        /// Reads every part of a value so that the optimiser cannot drop its reading: numbers, strings' and byte
        /// strings' lengths, collections walked member by member.
        static func touch(_ value: borrowing IPPValueSpan) -> Int {
            switch value {
            case .collection(var members):
                var sum = 0
                while let member = members.next() {
                    sum &+= member.name.utf8Count
                    var values = member.values
                    while let value = values.next() { sum &+= touch(value) }
                }
                return sum
            case .integer(let number), .enumValue(let number): return Int(number)
            case .boolean(let flag): return flag ? 1 : 0
            case .octetString(let bytes), .other(_, let bytes): return bytes.count
            case .dateTime(let date):
                return withUnsafeBytes(of: date) { fields in fields.reduce(0) { $0 &+ Int($1) } }
            case .resolution(let resolution):
                return Int(resolution.crossFeed) &+ Int(resolution.feed) &+ Int(resolution.units.rawValue)
            case .rangeOfInteger(let range): return Int(range.lower) &+ Int(range.upper)
            case .textWithLanguage(let text, let language), .nameWithLanguage(let text, let language):
                return text.utf8Count &+ language.utf8Count
            case .text(let string), .name(let string), .keyword(let string), .uri(let string), .uriScheme(let string),
                .charset(let string), .naturalLanguage(let string), .mimeMediaType(let string):
                return string.utf8Count
            case .outOfBand(let tag): return Int(tag.rawValue)
            }
        }
    }

    struct Result {
        var subject: Subject
        var iterations: Int
        /// Median nanoseconds per message, by workload.
        var nanoseconds: [Work: Double]
        var allocations: [Work: Double] = [:]
        var libcups: LibcupsHarness.Figures?
    }

    private func measure(_ subject: Subject) throws -> Result {
        var figures: [Work: Double] = [:]
        var sink = 0
        var decodeIterations = 0
        for work in Work.allCases where only == nil || only == work {
            let iterations = try scaledIterations { sink &+= try work.run(subject, count: $0) }
            if work == .decode { decodeIterations = iterations }
            figures[work] = try medianNanoseconds(iterations: iterations) { sink &+= try work.run(subject, count: $0) }
        }
        if sink == 42 { print("", terminator: "") }  // keeps the optimiser from discarding the work
        return Result(subject: subject, iterations: decodeIterations, nanoseconds: figures)
    }

    /// Doubles the batch size until a batch takes at least `batchMs`.
    private func scaledIterations(_ body: (Int) throws -> Void) throws -> Int {
        let clock = ContinuousClock()
        var count = 1
        while count < 1 << 30 {
            var failure: Error?
            let elapsed = clock.measure { do { try body(count) } catch { failure = error } }
            if let failure { throw failure }
            if elapsed >= .milliseconds(batchMs) { break }
            count *= 2
        }
        return count
    }

    private func medianNanoseconds(iterations: Int, _ body: (Int) throws -> Void) throws -> Double {
        let clock = ContinuousClock()
        try body(max(1, iterations / 4))  // warm-up
        var samples: [Double] = []
        for _ in 0..<rounds {
            var failure: Error?
            let elapsed = clock.measure { do { try body(iterations) } catch { failure = error } }
            if let failure { throw failure }
            samples.append(elapsed.seconds * 1e9 / Double(iterations))
        }
        samples.sort()
        return samples[samples.count / 2]
    }

    // MARK: Allocations

    /// Allocations per message of each workload, in `Work.allCases` order.
    private static func allocations(_ subject: Subject, counter: @convention(c) () -> UInt64) throws -> [Double] {
        let calls = 1000
        return try Work.allCases.map { work in
            _ = try work.run(subject, count: calls)  // warm-up: one-time allocations are not counted
            let before = counter()
            _ = try work.run(subject, count: calls)
            return Double(counter() &- before) / Double(calls)
        }
    }

    /// Runs this bench again with the counting allocator preloaded and reads its counts.
    private func countAllocations(into results: inout [Result], harness: LibcupsHarness?) throws {
        guard let harness else { return }
        let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        let output = try ChildProcess.output(
            [executable, "bench", "ipp", "--allocations-only"] + results.flatMap { ["--input", $0.subject.path] },
            environment: ["LD_PRELOAD": harness.allocationCounter])
        guard let counts = try? JSONSerialization.jsonObject(with: Data(output.utf8)) as? [[Double]],
            counts.count == results.count, counts.allSatisfy({ $0.count == Work.allCases.count })
        else { throw WorkbenchError("the allocation-counting run printed no counts: \(output)") }
        for (index, row) in counts.enumerated() {
            results[index].allocations = Dictionary(uniqueKeysWithValues: zip(Work.allCases, row))
        }
    }

    /// `workbench_malloc_count` from tools/libcups-bench/malloc_count.so, if it is loaded.
    private static let allocationCounter: (@convention(c) () -> UInt64)? = {
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "workbench_malloc_count") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) () -> UInt64).self)
    }()

    // MARK: Targets

    /// The targets, on the default messages: libcups time / our time. None without libcups figures.
    private func targets(_ results: [Result]) -> [BenchTarget] {
        var targets: [BenchTarget] = []
        for result in results {
            guard let cups = result.libcups, let treeGoal = Self.treeGoals[result.subject.label] else { continue }
            let label = "\(result.subject.label), \(result.subject.bytes.count) bytes"
            targets.append(
                BenchTarget(
                    "decode_tree vs libcups_read (\(label))",
                    measured: cups.read / (result.nanoseconds[.decodeTree] ?? .infinity), .atLeast, treeGoal))
            targets.append(
                BenchTarget(
                    "encode_built vs libcups_build_write (\(label))",
                    measured: cups.buildWrite / (result.nanoseconds[.encodeBuilt] ?? .infinity), .atLeast, 3))
            targets.append(
                BenchTarget(
                    "decode (lazy index) vs libcups_read (\(label))",
                    measured: cups.read / (result.nanoseconds[.decode] ?? .infinity), .atLeast, 10))
        }
        return targets
    }

    /// decode_tree's goal per default message; the other goals are the same on both.
    private static let treeGoals: [String: Double] = ["large response": 5, "small request": 3]

    // MARK: Reports

    /// A nanosecond or allocation figure as both the text and the JSON print it (one decimal), nil when not measured:
    /// formatted once, so the two never disagree on a rounding.
    static func shown(_ value: Double?) -> String? {
        guard let value, value.isFinite else { return nil }
        let tenths = Int((value * 10).rounded())
        return (tenths < 0 ? "-" : "") + "\(abs(tenths) / 10).\(abs(tenths) % 10)"
    }

    func jsonReport(_ results: [Result], targets: [BenchTarget]) -> String {
        func number(_ value: Double?) -> String { Self.shown(value) ?? "null" }
        let messages = results.map { result in
            var fields = [
                "\"message\": \(JSONString.quoted(result.subject.label))",
                "\"file\": \(JSONString.quoted(result.subject.path))",
                "\"bytes\": \(result.subject.bytes.count)",
                "\"attributes\": \(result.subject.message.groups.reduce(0) { $0 + $1.count })",
                "\"decode_ns_per_message\": \(number(result.nanoseconds[.decode]))",
                "\"decode_fresh_ns_per_message\": \(number(result.nanoseconds[.decodeFresh]))",
                "\"decode_tree_ns_per_message\": \(number(result.nanoseconds[.decodeTree]))",
                "\"encode_ns_per_message\": \(number(result.nanoseconds[.encode]))",
                "\"encode_built_ns_per_message\": \(number(result.nanoseconds[.encodeBuilt]))",
                "\"decode_allocations_per_message\": \(number(result.allocations[.decode]))",
                "\"decode_fresh_allocations_per_message\": \(number(result.allocations[.decodeFresh]))",
                "\"decode_tree_allocations_per_message\": \(number(result.allocations[.decodeTree]))",
                "\"encode_allocations_per_message\": \(number(result.allocations[.encode]))",
                "\"encode_built_allocations_per_message\": \(number(result.allocations[.encodeBuilt]))",
                "\"encode_built_reproduces_input\": \(result.subject.builtReproducesInput)",
            ]
            if let cups = result.libcups {
                fields += [
                    "\"libcups_read_ns_per_message\": \(number(cups.read))",
                    "\"libcups_write_ns_per_message\": \(number(cups.write))",
                    "\"libcups_build_write_ns_per_message\": \(number(cups.buildWrite))",
                    "\"libcups_read_allocations_per_message\": \(number(cups.readAllocations))",
                    "\"libcups_write_allocations_per_message\": \(number(cups.writeAllocations))",
                    "\"libcups_build_write_allocations_per_message\": \(number(cups.buildWriteAllocations))",
                    "\"libcups_write_reproduces_input\": \(cups.writeReproducesInput)",
                    "\"libcups_build_write_reproduces_input\": \(cups.buildWriteReproducesInput)",
                ]
            }
            return "{" + fields.joined(separator: ", ") + "}"
        }
        let cpu = CPU.current
        return "{\"cpu\": \(JSONString.quoted(cpu.model)), \"cores\": \(cpu.cores), \"rounds\": \(rounds), \"batch_ms\": \(batchMs), "
            + "\"messages\": [" + messages.joined(separator: ", ")
            + "], \"targets\": " + BenchTarget.jsonArray(targets) + "}"
    }

    func textReport(_ results: [Result], targets: [BenchTarget]) -> String {
        func fixed(_ value: Double?) -> String { Self.shown(value) ?? "-" }
        func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
        }
        let cpu = CPU.current
        var lines: [String] = ["CPU: \(cpu.model), \(cpu.cores) cores"]
        for result in results {
            let subject = result.subject
            lines.append(
                "\(subject.label): \(subject.path) (\(subject.bytes.count) bytes, "
                    + "\(subject.message.groups.reduce(0) { $0 + $1.count }) attributes)")
            lines.append(pad("", 21) + pad("ns/message", 12) + pad("allocations", 13))
            let rows: [(String, Double?, Double?)] = [
                ("decode", result.nanoseconds[.decode], result.allocations[.decode]),
                ("decode_fresh", result.nanoseconds[.decodeFresh], result.allocations[.decodeFresh]),
                ("decode_tree", result.nanoseconds[.decodeTree], result.allocations[.decodeTree]),
                ("libcups_read", result.libcups?.read, result.libcups?.readAllocations),
                ("encode", result.nanoseconds[.encode], result.allocations[.encode]),
                ("encode_built", result.nanoseconds[.encodeBuilt], result.allocations[.encodeBuilt]),
                ("libcups_write", result.libcups?.write, result.libcups?.writeAllocations),
                ("libcups_build_write", result.libcups?.buildWrite, result.libcups?.buildWriteAllocations),
            ]
            for (name, time, allocations) in rows {
                lines.append(
                    "  " + name.padding(toLength: 19, withPad: " ", startingAt: 0) + pad(fixed(time), 12)
                        + pad(fixed(allocations), 13))
            }
            if !subject.builtReproducesInput { lines.append("  note: the builders encode this message differently from its input") }
        }
        if !targets.isEmpty { lines.append("Targets:") }
        for target in targets { lines.append("  " + target.textLine) }
        return lines.joined(separator: "\n")
    }
}

/// tools/libcups-bench: the libcups harness and the counting allocator, compiled for this run.
struct LibcupsHarness {
    struct Figures {
        var read: Double
        var write: Double
        var readAllocations: Double?
        var writeAllocations: Double?
        var writeReproducesInput: Bool
        var buildWrite: Double
        var buildWriteAllocations: Double?
        var buildWriteReproducesInput: Bool
    }

    let folder: (path: String, token: BenchInterruption.Token)
    var directory: String { folder.path }
    var executable: String { "\(directory)/ipp_bench" }
    var allocationCounter: String { "\(directory)/malloc_count.so" }

    /// Compiles both C files from the repository's tools/libcups-bench into a fresh temporary folder.
    static func build() throws -> LibcupsHarness {
        let fixtures = try Fixtures.path("")
        let sources = URL(fileURLWithPath: fixtures).deletingLastPathComponent().appendingPathComponent("tools/libcups-bench").path
        guard FileManager.default.fileExists(atPath: "\(sources)/ipp_bench.c") else {
            throw WorkbenchError("cannot find tools/libcups-bench/ipp_bench.c next to \(fixtures); run from the repository or pass --no-libcups")
        }
        let harness = LibcupsHarness(folder: try BenchInterruption.workFolder("ipp"))
        do {
            _ = try ChildProcess.output(["cc", "-O2", "-o", harness.executable, "\(sources)/ipp_bench.c", "-lcups", "-ldl"])
            _ = try ChildProcess.output([
                "cc", "-O2", "-shared", "-fPIC", "-o", harness.allocationCounter,
                "\(sources)/malloc_count.c", "-ldl",
            ])
        } catch {
            harness.remove()
            throw WorkbenchError(
                "cannot compile the libcups harness (tools/setup.sh installs gcc and libcups2-dev; "
                    + "or pass --no-libcups): \(error)")
        }
        return harness
    }

    /// Times libcups on one message, then counts its allocations in a second, preloaded run.
    func run(_ message: String) throws -> Figures {
        let timed = try object(try ChildProcess.output([executable, message, "--json"]))
        let counted = try object(
            try ChildProcess.output(
                [executable, message, "--json"],
                environment: ["LD_PRELOAD": allocationCounter]))
        guard let read = timed["read_ns_per_message"] as? Double, let write = timed["write_ns_per_message"] as? Double,
            let buildWrite = timed["build_write_ns_per_message"] as? Double
        else {
            throw WorkbenchError("the libcups harness printed no figures for \(message): \(timed)")
        }
        return Figures(
            read: read, write: write,
            readAllocations: counted["read_allocations_per_message"] as? Double,
            writeAllocations: counted["write_allocations_per_message"] as? Double,
            writeReproducesInput: timed["write_reproduces_input"] as? Bool ?? false,
            buildWrite: buildWrite,
            buildWriteAllocations: counted["build_write_allocations_per_message"] as? Double,
            buildWriteReproducesInput: timed["build_write_reproduces_input"] as? Bool ?? false)
    }

    private func object(_ text: String) throws -> [String: Any] {
        guard let object = try? JSONSerialization.jsonObject(with: Data(text.utf8)) as? [String: Any] else {
            throw WorkbenchError("the libcups harness printed no JSON: \(text)")
        }
        return object
    }

    func remove() { BenchInterruption.remove(folder) }
}
