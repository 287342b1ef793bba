import ArgumentParser
import Foundation
import IPP
import NIOCore
import NIOHTTP1
import Wire
import WireHTTP

/// `workbench bench mig`: MiG's Print-Job throughput and latency next to CUPS' ippeveprinter, both as separate
/// processes on loopback driven by the same client loop, and MiG's peak memory while ingesting a huge document.
struct MiGBench: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mig",
        abstract: "Print-Job jobs/s and p50/p99 against MiG and ippeveprinter; MiG's peak RSS ingesting a large document.",
        discussion: "Needs ippeveprinter, dbus-daemon and curl (tools/setup.sh installs them). Use a release build for figures."
    )

    @Option(help: "Print-Job requests per server.")
    var jobs = 200

    @Option(help: "Document size in bytes.")
    var size = 1_000_000

    @Option(name: .customLong("ingest-mib"), help: "Size of the document for the memory check, in MiB (0 to skip).")
    var ingestMiB = 1024

    @Flag(help: "Run MiG with sync-to-disk (fsync before every answer: power-loss safe, slower).")
    var syncToDisk = false

    @Flag(help: "Print one JSON object instead of text.")
    var json = false

    func validate() throws {
        guard (1...1_000_000).contains(jobs) else { throw ValidationError("--jobs \(jobs): expected 1…1000000") }
        guard (0...(1 << 30)).contains(size) else { throw ValidationError("--size \(size): expected 0…1073741824 bytes") }
        guard (0...65_536).contains(ingestMiB) else { throw ValidationError("--ingest-mib \(ingestMiB): expected 0…65536") }
    }

    func run() async throws {
        let work = NSTemporaryDirectory() + "workbench-bench-mig-\(getpid())"
        try FileManager.default.createDirectory(atPath: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: work) }
        let wire = LiveWire()
        let client = wire.node("bench")
        var document = [UInt8]("%PDF-1.4\n".utf8)
        document += [UInt8](repeating: 0x20, count: max(0, size - document.count))

        let mig = try Served.mig(state: "\(work)/mig", syncToDisk: syncToDisk)
        defer { mig.stop() }
        let migFigures = try await Self.printJobs(jobs, document: document, host: "127.0.0.1", port: mig.port, credentials: "demo:demo-password", on: client)

        let peer = try Served.ippeveprinter(state: "\(work)/ippeveprinter")
        defer { peer.stop() }
        let peerFigures = try await Self.printJobs(jobs, document: document, host: "127.0.0.1", port: peer.port, credentials: nil, on: client)

        var ingest: (seconds: Double, peakRSSMiB: Double)?
        if ingestMiB > 0 { ingest = try Self.ingest(mib: ingestMiB, into: mig, work: work) }
        try await wire.shutdown()

        let ratio = migFigures.jobsPerSecond / peerFigures.jobsPerSecond
        if json {
            var fields = [
                "\"jobs\":\(jobs)", "\"document_bytes\":\(size)", "\"mig_sync_to_disk\":\(syncToDisk)",
                "\"mig_jobs_per_second\":\(Self.format(migFigures.jobsPerSecond))",
                "\"mig_p50_ms\":\(Self.format(migFigures.p50 * 1000))", "\"mig_p99_ms\":\(Self.format(migFigures.p99 * 1000))",
                "\"ippeveprinter_jobs_per_second\":\(Self.format(peerFigures.jobsPerSecond))",
                "\"ippeveprinter_p50_ms\":\(Self.format(peerFigures.p50 * 1000))", "\"ippeveprinter_p99_ms\":\(Self.format(peerFigures.p99 * 1000))",
                "\"ippeveprinter_busy_retries\":\(peerFigures.busyRetries)",
                "\"jobs_per_second_ratio\":\(Self.format(ratio))",
            ]
            if let ingest {
                fields += ["\"ingest_mib\":\(ingestMiB)", "\"ingest_seconds\":\(Self.format(ingest.seconds))", "\"ingest_peak_rss_mib\":\(Self.format(ingest.peakRSSMiB))"]
            }
            print("{" + fields.joined(separator: ",") + "}")
        } else {
            print("Print-Job of \(size) bytes, \(jobs) jobs, one client, sequential, loopback\(syncToDisk ? ", MiG fsyncing every answer" : ""):")
            print("  MiG:           \(Self.format(migFigures.jobsPerSecond)) jobs/s, p50 \(Self.format(migFigures.p50 * 1000)) ms, p99 \(Self.format(migFigures.p99 * 1000)) ms")
            print("  ippeveprinter: \(Self.format(peerFigures.jobsPerSecond)) jobs/s, p50 \(Self.format(peerFigures.p50 * 1000)) ms, p99 \(Self.format(peerFigures.p99 * 1000)) ms (\(peerFigures.busyRetries) server-error-busy retries)")
            print("  ratio:         \(Self.format(ratio))×")
            if let ingest {
                print("Ingesting a \(ingestMiB) MiB document: \(Self.format(ingest.seconds)) s, MiG peak RSS \(Self.format(ingest.peakRSSMiB)) MiB")
            }
        }
    }

    struct Figures {
        var jobsPerSecond: Double
        var p50: Double
        var p99: Double
        var busyRetries: Int
    }

    /// Sequential Print-Jobs, one connection each; a server-error-busy answer is retried (ippeveprinter prints
    /// one job at a time and says busy meanwhile), and the retries count in the job's latency.
    static func printJobs(_ count: Int, document: [UInt8], host: String, port: Int, credentials: String?, on node: Node) async throws -> Figures {
        var latencies: [Double] = []
        var busy = 0
        let clock = ContinuousClock()
        let total = try await clock.measure {
            for index in 0..<count {
                let started = clock.now
                while true {
                    let request = IPPMessage.request(.printJob, requestID: Int32(index + 1)) { op in
                        op.addPrinterURI("ipp://\(host):\(port)/ipp/print")
                        op.addRequestingUserName("bench")
                        op.addJobName("bench-\(index).pdf")
                        op.addDocumentFormat("application/pdf")
                    }
                    var body = ByteBuffer(bytes: try IPPEncoder().encode(request))
                    body.writeBytes(document)
                    var headers: HTTPHeaders = ["Content-Type": "application/ipp"]
                    if let credentials { headers.add(name: "Authorization", value: "Basic " + Data(credentials.utf8).base64EncodedString()) }
                    let response = try await HTTPClient.send(HTTPRequest(method: .POST, target: "/ipp/print", headers: headers, body: body),
                                                             host: host, port: port, on: node)
                    let answer = try IPPDecoder().decode(Array(response.body.readableBytesView))
                    if answer.status == .busy {
                        busy += 1
                        try await Task.sleep(for: .milliseconds(1))  // short, so the peer is not held back by our waiting
                        continue
                    }
                    guard answer.status.rawValue < 0x100 else { throw BenchError("job \(index): \(answer.status)") }
                    break
                }
                latencies.append((clock.now - started).seconds)
            }
        }
        latencies.sort()
        return Figures(jobsPerSecond: Double(count) / total.seconds, p50: latencies[latencies.count / 2],
                       p99: latencies[min(latencies.count - 1, latencies.count * 99 / 100)], busyRetries: busy)
    }

    /// Streams a huge Print-Job into the served MiG with curl (chunked, from a generator, so nothing holds
    /// the whole document) and reads MiG's peak resident memory from /proc.
    static func ingest(mib: Int, into mig: Served, work: String) throws -> (Double, Double) {
        let header = "\(work)/header.ipp"
        let request = IPPMessage.request(.printJob, requestID: 1) { op in
            op.addPrinterURI("ipp://127.0.0.1:\(mig.port)/ipp/print")
            op.addJobName("huge.pdf")
            op.addDocumentFormat("application/pdf")
        }
        try Data(try IPPEncoder().encode(request)).write(to: URL(fileURLWithPath: header))
        let script = "(cat \(header); head -c \(mib)M /dev/zero) | curl -sS -o /dev/null -w '%{http_code}' -u demo:demo-password "
            + "-H 'Content-Type: application/ipp' -X POST -T - http://127.0.0.1:\(mig.port)/ipp/print"
        let started = Date()
        let status = try Served.shell(script)
        let seconds = Date().timeIntervalSince(started)
        guard status == "200" else { throw BenchError("ingest answered HTTP \(status)") }
        return (seconds, mig.peakRSSMiB())
    }

    static func format(_ value: Double) -> String { String(format: value >= 100 ? "%.0f" : "%.2f", value) }
}
