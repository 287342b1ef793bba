import ArgumentParser
import IPP
import JSONEscaping

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `workbench bench ipp`: how fast the IPP codec decodes and encodes captured messages.
///
/// Each message is decoded and encoded many times: the iteration count is
/// scaled until one batch takes about `--batch-ms`, then several rounds are
/// timed with the monotonic clock and the median is reported. When the
/// counting allocator `tools/libcups-bench/malloc_count.so` is preloaded
/// (as tools/bench-ipp.sh does), allocations per message are reported too.
public struct IPPBench: ParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "ipp",
        abstract: "Measure IPP decode and encode speed on captured messages (default: Fixtures/ipp/*.ipp).")

    @Option(name: .long, help: "An IPP message file; repeat for several. Default: every *.ipp in Fixtures/ipp/.")
    var input: [String] = []

    @Flag(name: .long, help: "Print one JSON object instead of a table.")
    var json = false

    @Option(name: .long, help: "Timed rounds per message; the median is reported.")
    var rounds = 7

    @Option(name: .long, help: "Target duration of one timed batch, in milliseconds.")
    var batchMs = 40

    public func validate() throws {
        guard (1...1_000).contains(rounds) else { throw ValidationError("--rounds \(rounds): expected 1…1000") }
        guard (1...60_000).contains(batchMs) else { throw ValidationError("--batch-ms \(batchMs): expected 1…60000") }
    }

    public init() {}

    public func run() throws {
        let paths = try inputPaths()
        var results: [FileResult] = []
        for path in paths {
            guard let bytes = readWholeFile(path) else {
                throw ValidationError("cannot read \(path)")
            }
            let message: IPPMessage
            do {
                message = try IPPDecoder().decode(bytes)
            } catch {
                throw ValidationError("\(path): \(error)")
            }
            results.append(measure(path: path, bytes: bytes, message: message))
        }
        print(json ? jsonReport(results) : tableReport(results))
    }

    // MARK: Measuring

    struct FileResult {
        var path: String
        var bytes: Int
        var attributes: Int
        var decodeNanoseconds: Double
        var decodeAndReadNanoseconds: Double
        var encodeNanoseconds: Double
        var iterations: Int
        var decodeAllocations: Double?
        var encodeAllocations: Double?
    }

    private func measure(path: String, bytes: [UInt8], message: IPPMessage) -> FileResult {
        let decoder = IPPDecoder()
        let encoder = IPPEncoder()
        var sink = 0
        let decode = { (count: Int) in
            for _ in 0..<count {
                if let decoded = try? decoder.decode(bytes) { sink &+= decoded.groupCount }
            }
        }
        let decodeAndRead = { (count: Int) in
            for _ in 0..<count {
                guard let decoded = try? decoder.decode(bytes) else { continue }
                for group in decoded.groups {
                    for attribute in group { sink &+= attribute.values.count }
                }
            }
        }
        let encode = { (count: Int) in
            for _ in 0..<count {
                if let encoded = try? encoder.encode(message) { sink &+= encoded.count }
            }
        }
        let iterations = scaledIterations(decode)
        let result = FileResult(
            path: path, bytes: bytes.count,
            attributes: message.groups.reduce(0) { $0 + $1.count },
            decodeNanoseconds: medianNanoseconds(decode, iterations: iterations),
            decodeAndReadNanoseconds: medianNanoseconds(decodeAndRead, iterations: max(1, iterations / 8)),
            encodeNanoseconds: medianNanoseconds(encode, iterations: iterations),
            iterations: iterations,
            decodeAllocations: allocationsPerCall(decode),
            encodeAllocations: allocationsPerCall(encode))
        // Keeps the optimiser from discarding the work.
        if sink == 42 { print("", terminator: "") }
        return result
    }

    /// Doubles the batch size until a batch takes at least `batchMs`.
    private func scaledIterations(_ body: (Int) -> Void) -> Int {
        let clock = ContinuousClock()
        var count = 1
        while count < 1 << 30 {
            let elapsed = clock.measure { body(count) }
            if elapsed >= .milliseconds(batchMs) { break }
            count *= 2
        }
        return count
    }

    private func medianNanoseconds(_ body: (Int) -> Void, iterations: Int) -> Double {
        let clock = ContinuousClock()
        body(max(1, iterations / 4))  // warm-up
        var samples: [Double] = []
        for _ in 0..<max(1, rounds) {
            let elapsed = clock.measure { body(iterations) }
            let (seconds, attoseconds) = elapsed.components
            let nanoseconds = Double(seconds) * 1e9 + Double(attoseconds) / 1e9
            samples.append(nanoseconds / Double(iterations))
        }
        samples.sort()
        return samples[samples.count / 2]
    }

    /// Allocations per call, when the counting allocator is preloaded; nil otherwise.
    private func allocationsPerCall(_ body: (Int) -> Void) -> Double? {
        guard let counter = Self.allocationCounter else { return nil }
        let calls = 1000
        body(calls)  // warm-up, so that one-time allocations are not counted
        let before = counter()
        body(calls)
        return Double(counter() &- before) / Double(calls)
    }

    /// `workbench_malloc_count` from tools/libcups-bench/malloc_count.so, if it is loaded.
    private static let allocationCounter: (@convention(c) () -> UInt64)? = {
        #if canImport(Glibc)
        guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "workbench_malloc_count") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) () -> UInt64).self)
        #else
        return nil
        #endif
    }()

    // MARK: Input files

    private func inputPaths() throws -> [String] {
        if !input.isEmpty { return input }
        let directory = try Fixtures.path("ipp")
        guard let handle = opendir(directory) else {
            throw ValidationError("no --input given and \(directory)/ cannot be opened; pass --input FILE")
        }
        defer { closedir(handle) }
        var names: [String] = []
        while let entry = readdir(handle) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            if name.hasSuffix(".ipp") { names.append(directory + "/" + name) }
        }
        guard !names.isEmpty else { throw ValidationError("no *.ipp files in \(directory)/") }
        return names.sorted()
    }

    private func readWholeFile(_ path: String) -> [UInt8]? {
        guard let file = fopen(path, "rb") else { return nil }
        defer { fclose(file) }
        var result: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = fread(&buffer, 1, buffer.count, file)
            if count <= 0 { break }
            result.append(contentsOf: buffer[0..<count])
        }
        return result
    }

    // MARK: Reports

    /// With several inputs the headline figures are the mean over inputs of each input's median.
    private func headline(_ results: [FileResult], _ value: (FileResult) -> Double?) -> Double? {
        let values = results.compactMap(value)
        guard !values.isEmpty else { return nil }
        return values.reduce(0, +) / Double(values.count)
    }

    private func jsonReport(_ results: [FileResult]) -> String {
        func number(_ value: Double?) -> String {
            guard let value else { return "null" }
            return String(Double(Int((value * 10).rounded())) / 10)
        }
        var fields = [
            "\"decode_ns_per_message\": \(number(headline(results) { $0.decodeNanoseconds }))",
            "\"encode_ns_per_message\": \(number(headline(results) { $0.encodeNanoseconds }))",
            "\"decode_and_read_values_ns_per_message\": \(number(headline(results) { $0.decodeAndReadNanoseconds }))",
            "\"decode_allocations_per_message\": \(number(headline(results) { $0.decodeAllocations }))",
            "\"encode_allocations_per_message\": \(number(headline(results) { $0.encodeAllocations }))",
            "\"messages\": \(results.count)",
            "\"rounds\": \(rounds)",
        ]
        let files = results.map { result in
            "{\"file\": \(JSONString.quoted(result.path)), \"bytes\": \(result.bytes), \"attributes\": \(result.attributes), "
                + "\"iterations\": \(result.iterations), "
                + "\"decode_ns\": \(number(result.decodeNanoseconds)), \"encode_ns\": \(number(result.encodeNanoseconds)), "
                + "\"decode_and_read_values_ns\": \(number(result.decodeAndReadNanoseconds)), "
                + "\"decode_allocations\": \(number(result.decodeAllocations)), "
                + "\"encode_allocations\": \(number(result.encodeAllocations))}"
        }
        fields.append("\"files\": [" + files.joined(separator: ", ") + "]")
        return "{" + fields.joined(separator: ", ") + "}"
    }

    private func tableReport(_ results: [FileResult]) -> String {
        func pad(_ text: String, _ width: Int) -> String {
            text.count >= width ? text : String(repeating: " ", count: width - text.count) + text
        }
        func fixed(_ value: Double?) -> String {
            guard let value else { return "-" }
            return String(Double(Int((value * 10).rounded())) / 10)
        }
        var lines = [pad("bytes", 7) + pad("attrs", 7) + pad("decode ns", 12) + pad("+read ns", 12)
            + pad("encode ns", 12) + pad("dec MB/s", 10) + pad("allocs d/e", 12) + "  file"]
        for result in results {
            let megabytes = Double(result.bytes) / result.decodeNanoseconds * 1000
            lines.append(pad("\(result.bytes)", 7) + pad("\(result.attributes)", 7)
                + pad(fixed(result.decodeNanoseconds), 12) + pad(fixed(result.decodeAndReadNanoseconds), 12)
                + pad(fixed(result.encodeNanoseconds), 12) + pad(fixed(megabytes), 10)
                + pad("\(fixed(result.decodeAllocations))/\(fixed(result.encodeAllocations))", 12)
                + "  " + result.path)
        }
        lines.append("mean of medians: decode \(fixed(headline(results) { $0.decodeNanoseconds })) ns, "
            + "encode \(fixed(headline(results) { $0.encodeNanoseconds })) ns per message")
        return lines.joined(separator: "\n")
    }
}
