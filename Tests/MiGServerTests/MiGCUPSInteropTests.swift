import Foundation
import MiGServer
import TestSupport
import Testing
import Wire

/// MiG with the clients real users have: CUPS 2.4 makes a driverless queue on it (`lpadmin -m everywhere`) and
/// prints through it, and ipptool's IPP Everywhere suites pass against it.
@Suite(.serialized) struct MiGCUPSInteropTests {
    /// A live MiG, plain IPP on a free port, documents kept in a spool directory, discovery without credentials.
    static func live(_ state: String) async throws -> (LiveWire, MiGServer, url: String) {
        let wire = LiveWire()
        var configuration = MiGServer.Configuration()
        configuration.tlsPort = nil
        configuration.plainPort = 0
        configuration.databasePath = "\(state)/mig.sqlite"
        configuration.spoolDirectory = "\(state)/spool"
        configuration.anonymousDiscovery = true
        configuration.printer.pagesPerMinute = 6_000
        let server = try await MiGServer.start(on: wire.node("mig"), configuration: configuration).get()
        let url = try #require(server.endpoints.first { $0.label == "ipp" }?.url)
        return (wire, server, url)
    }

    static func workspace(_ name: String) throws -> String {
        let directory = NSTemporaryDirectory() + "mig-\(name)-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        return directory
    }

    /// A private cupsd as `bench mig` starts one: its own configuration, port, spool and logs under `state`; the
    /// system's backends and filters (cups-filters-core-drivers' pdftopdf turns a PDF into what the queue sends).
    static func cupsd(state: String) throws -> (ServedProcess, port: Int) {
        let files = FileManager.default
        for directory in ["spool/tmp", "cache", "run", "bin/filter", "ppd"] {
            try files.createDirectory(atPath: "\(state)/\(directory)", withIntermediateDirectories: true)
        }
        for link in ["daemon", "backend", "notifier"] {
            try files.createSymbolicLink(atPath: "\(state)/bin/\(link)", withDestinationPath: "/usr/lib/cups/\(link)")
        }
        for filter in (try? files.contentsOfDirectory(atPath: "/usr/lib/cups/filter")) ?? [] {
            try files.createSymbolicLink(atPath: "\(state)/bin/filter/\(filter)", withDestinationPath: "/usr/lib/cups/filter/\(filter)")
        }
        let group = getgrgid(getgid()).flatMap { $0.pointee.gr_name.map { String(cString: $0) } } ?? "root"
        let port = try Ports.free()
        try """
            ServerRoot \(state)
            RequestRoot \(state)/spool
            TempDir \(state)/spool/tmp
            CacheDir \(state)/cache
            StateDir \(state)/run
            ServerBin \(state)/bin
            DataDir /usr/share/cups
            ErrorLog \(state)/error_log
            AccessLog \(state)/access_log
            PageLog \(state)/page_log
            SystemGroup \(group)
            Sandboxing relaxed

            """.write(toFile: "\(state)/cups-files.conf", atomically: true, encoding: .utf8)
        try """
            Listen 127.0.0.1:\(port)
            Browsing No
            BrowseLocalProtocols none
            WebInterface No
            LogLevel debug
            PreserveJobHistory Yes
            DefaultAuthType None
            <Location />
              Order allow,deny
              Allow all
            </Location>
            <Policy default>
              JobPrivateAccess all
              JobPrivateValues none
              <Limit All>
                Order deny,allow
              </Limit>
            </Policy>

            """.write(toFile: "\(state)/cupsd.conf", atomically: true, encoding: .utf8)
        let served = try ServedProcess.start("/usr/sbin/cupsd", ["-f", "-c", "\(state)/cupsd.conf", "-s", "\(state)/cups-files.conf"],
                                             until: .acceptsConnections(port: port))
        return (served, port)
    }

    /// Waits (wall clock: real processes) until `condition` holds, up to `seconds`.
    static func eventually(_ seconds: Double, _ condition: () throws -> Bool) rethrows -> Bool {
        let end = Date().addingTimeInterval(seconds)
        while Date() < end {
            if try condition() { return true }
            Thread.sleep(forTimeInterval: 0.2)
        }
        return try condition()
    }

    @Test func cupsMakesADriverlessQueueOnMiGAndPrintsThroughIt() async throws {
        let directory = try Self.workspace("cups")
        let (wire, server, url) = try await Self.live(directory)
        let (cupsd, port) = try Self.cupsd(state: "\(directory)/cups")
        let host = "127.0.0.1:\(port)"
        // The URI carries the account: cupsd builds the queue without it (anonymous discovery), the backend prints with it.
        let made = try ExternalProcess.run("/usr/sbin/lpadmin", ["-h", host, "-p", "mig", "-E", "-v", url, "-m", "everywhere"])
        #expect(made.status == 0, "\(made.output)")
        // lpadmin returns before cupsd has made the PPD; a failure shows only in the log, so look for the PPD.
        let ppdPath = "\(directory)/cups/ppd/mig.ppd"
        let ppdMade = Self.eventually(30) { FileManager.default.fileExists(atPath: ppdPath) }
        let log = { (try? String(contentsOfFile: "\(directory)/cups/error_log", encoding: .utf8)) ?? "" }
        #expect(ppdMade, "no PPD: \(log().split(separator: "\n").filter { $0.contains("mig:") }.suffix(10).joined(separator: "\n"))")
        let ppd = (try? String(contentsOfFile: ppdPath, encoding: .utf8)) ?? ""
        #expect(ppd.contains("*cupsFilter2: \"image/pwg-raster image/pwg-raster"))
        #expect(ppd.contains("*PageSize A4:"))

        try Data(Self.pdf(pages: 3)).write(to: URL(fileURLWithPath: "\(directory)/three-pages.pdf"))
        try Data(Self.pwgRaster(pages: 2)).write(to: URL(fileURLWithPath: "\(directory)/two-pages.pwg"))
        for file in ["three-pages.pdf", "two-pages.pwg"] {
            let printed = try ExternalProcess.run("/usr/bin/lp", ["-h", host, "-d", "mig", "\(directory)/\(file)"])
            #expect(printed.status == 0, "\(printed.output)")
        }
        let done = try Self.eventually(60) { try server.jobs().count == 2 && server.jobs().allSatisfy { $0.state.isFinal } }
        let jobs = try server.jobs()
        #expect(done, "MiG's jobs: \(jobs.map { "\($0.id ?? 0) \($0.state) \($0.reasons)" })\n\(log().suffix(3000))")
        #expect(jobs.map(\.state) == [.completed, .completed])
        #expect(jobs.map(\.user) == ["demo", "demo"])
        // MiG counted each document's pages itself: what pdftopdf sent, and the raster's two page headers.
        #expect(jobs.map(\.pages) == [3, 2])
        #expect(jobs.map(\.impressions) == [3, 2])
        // CUPS' own count of the pages it sent (page_log: "total N").
        let pageLog = (try? String(contentsOfFile: "\(directory)/cups/page_log", encoding: .utf8)) ?? ""
        #expect(pageLog.contains("total 3"), "\(pageLog)")
        _ = cupsd.stop()
        try await server.stop().get()
        try await wire.shutdown()
    }

    @Test(arguments: ["ipp-1.1.test", "ipp-2.0.test", "ipp-everywhere.test", "get-printer-attributes.test"])
    func ipptoolSuiteHasNoFailures(suite: String) async throws {
        let directory = try Self.workspace("everywhere")
        for test in ["ipp-1.1.test", "ipp-2.0.test", "ipp-everywhere.test", "get-printer-attributes.test"] {
            try FileManager.default.copyItem(atPath: "/usr/share/cups/ipptool/\(test)", toPath: "\(directory)/\(test)")
        }
        try Data(Self.pdf(pages: 1)).write(to: URL(fileURLWithPath: "\(directory)/document-letter.pdf"))
        let (wire, server, url) = try await Self.live(directory)
        // ipptool's exit code can be 0 despite [FAIL] lines: read its report.
        let report = try ExternalProcess.run("/usr/bin/ipptool", ["-c", "-t", "-f", "document-letter.pdf", url, suite],
                                             currentDirectory: directory, timeout: 300).output
        #expect(!report.contains("[FAIL]"), "\(report)")
        #expect(report.contains("[PASS]"), "\(report)")
        try await server.stop().get()
        try await wire.shutdown()
    }

    // MARK: Documents

    /// A PDF of `pages` A4 pages with a page tree and cross-reference table, as a PDF reader counts them.
    static func pdf(pages: Int) -> [UInt8] {
        var objects = ["<< /Type /Catalog /Pages 2 0 R >>",
                       "<< /Type /Pages /Kids [\((0..<pages).map { "\(3 + $0 * 2) 0 R" }.joined(separator: " "))] /Count \(pages) >>"]
        for page in 0..<pages {
            let content = "BT /F1 24 Tf 72 720 Td (Page \(page + 1)) Tj ET"
            objects.append("<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] /Contents \(4 + page * 2) 0 R "
                + "/Resources << /Font << /F1 << /Type /Font /Subtype /Type1 /BaseFont /Helvetica >> >> >> >>")
            objects.append("<< /Length \(content.utf8.count) >>\nstream\n\(content)\nendstream")
        }
        var out = Array("%PDF-1.4\n".utf8)
        var offsets: [Int] = []
        for (index, object) in objects.enumerated() {
            offsets.append(out.count)
            out += Array("\(index + 1) 0 obj\n\(object)\nendobj\n".utf8)
        }
        let xref = out.count
        out += Array("xref\n0 \(objects.count + 1)\n0000000000 65535 f \n".utf8)
        for offset in offsets { out += Array((String(repeating: "0", count: 10 - String(offset).count) + "\(offset) 00000 n \n").utf8) }
        out += Array("trailer\n<< /Size \(objects.count + 1) /Root 1 0 R >>\nstartxref\n\(xref)\n%%EOF\n".utf8)
        return out
    }

    /// PWG raster (PWG 5102.4): `pages` white 1-inch pages, 8-bit grey at 300 dpi, each a 1796-byte page header and
    /// its run-length encoded lines.
    static func pwgRaster(pages: Int) -> [UInt8] {
        let size: UInt32 = 300
        var out = Array("RaS2".utf8)
        for page in 1...pages {
            var header = [UInt8](repeating: 0, count: 1796)
            func put(_ value: UInt32, at offset: Int) { withUnsafeBytes(of: value.bigEndian) { header.replaceSubrange(offset..<offset + 4, with: $0) } }
            header.replaceSubrange(0..<9, with: Array("PwgRaster".utf8))
            put(300, at: 276)
            put(300, at: 280)  // HWResolution
            put(72, at: 352)
            put(72, at: 356)  // PageSize, points
            put(size, at: 372)  // cupsWidth
            put(size, at: 376)  // cupsHeight
            put(8, at: 384)  // cupsBitsPerColor
            put(8, at: 388)  // cupsBitsPerPixel
            put(size, at: 392)  // cupsBytesPerLine
            put(18, at: 400)  // cupsColorSpace: sgray
            put(1, at: 420)  // cupsNumColors
            put(UInt32(pages), at: 452)  // TotalPageCount
            _ = page
            out += header
            // Lines: 256 identical lines, then 44; each line 128 + 128 + 44 white pixels.
            let line: [UInt8] = [127, 0xFF, 127, 0xFF, 43, 0xFF]
            out += [255] + line + [43] + line
        }
        return out
    }
}
