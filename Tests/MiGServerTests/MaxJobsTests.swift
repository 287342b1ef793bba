import Foundation
import IPP
import Kernel
import MiGServer
import PrintDocuments
import Testing
import Wire

/// max-jobs, as cupsd's MaxJobs: the spool keeps a bounded history, forgetting the oldest finished jobs, and refuses
/// a new job while every job it keeps is still active.
@Suite struct MaxJobsTests {
    typealias World = MiGServerTests

    /// A one-page document (at the default 60 ppm each job prints for a second), or one of `pages` pages.
    static func print(_ kernel: Kernel, _ phone: Node, requestID: Int32, pages: Int = 1) throws -> IPPMessage {
        let document = try PaddedPDF(byteCount: max(1_000, PaddedPDF.minimumBytes(pages: pages)), pages: pages).bytes
        return try World.ipp(World.post(kernel, phone, try World.printJob(document: document, requestID: requestID)))
    }

    @Test func theOldestFinishedJobIsForgottenAndANewJobIsRefusedWhileAllAreActive() throws {
        let spool = NSTemporaryDirectory() + "mig-max-jobs-\(getpid())"
        defer { try? FileManager.default.removeItem(atPath: spool) }
        let (kernel, phone, server) = try World.world {
            $0.maxJobs = 2
            $0.spoolDirectory = spool
            $0.preserveJobFiles = true
        }
        #expect(try Self.print(kernel, phone, requestID: 1).status == .successfulOK)
        #expect(try Self.print(kernel, phone, requestID: 2).status == .successfulOK)
        let refused = try Self.print(kernel, phone, requestID: 3)
        #expect(refused.status == .tooManyJobs, "both jobs kept are still pending or printing")
        #expect(refused.statusMessage?.contains("max-jobs") == true)
        #expect(try server.jobs().map(\.id) == [1, 2], "a refused job is not numbered or kept")

        kernel.advance(by: .seconds(5))
        #expect(try server.jobs().allSatisfy { $0.state == .completed })
        let disk = kernel.disk(of: "mig")  // the spool's files are on the node's simulated disk
        #expect(disk.exists("\(spool)/job-1-1.doc"), "preserve-job-files kept it so far")
        #expect(try Self.print(kernel, phone, requestID: 4).status == .successfulOK)
        #expect(try server.jobs().map(\.id) == [2, 3], "job 1 made room for job 3; ids never go back")
        kernel.advance(by: .seconds(1))
        #expect(!disk.exists("\(spool)/job-1-1.doc"), "a forgotten job's document goes with it")
        #expect(kernel.trace.all.contains { $0.event == "job-forgotten" && $0.fields.contains { $0 == ("job", "1") } })
    }

    @Test func noLimitKeepsEveryJob() throws {
        let (kernel, phone, server) = try World.world { $0.maxJobs = 0 }
        for id in 1...5 {
            #expect(try Self.print(kernel, phone, requestID: Int32(id)).status == .successfulOK)
            kernel.advance(by: .seconds(2))
        }
        #expect(try server.jobs().count == 5)
    }

    /// The pages of forgotten jobs still count for the toner, also after a restart (they are logged with the jobs).
    @Test func forgottenPagesStillCountAfterARestart() throws {
        // On the node's simulated disk: the restart is on the same node of the same world.
        let database = "/var/spool/mig/mig.sqlite"
        func supply(_ kernel: Kernel, _ phone: Node) throws -> String {
            let request = IPPMessage.request(.getPrinterAttributes, requestID: 9) { op in
                op.addPrinterURI("ipp://mig/ipp/print")
                op.addRequestedAttributes(["printer-supply"])
            }
            let answer = try World.ipp(World.post(kernel, phone, try IPPEncoder().encode(request)))
            guard case .octetString(let bytes) = answer.group(.printer)?["printer-supply"]?.value else { return "no printer-supply" }
            return String(decoding: bytes, as: UTF8.self)
        }
        // 1,000 pages a job at top speed: three jobs take 15 % of the toner.
        func configure(_ configuration: inout MiGServer.Configuration) {
            configuration.maxJobs = 1
            configuration.databasePath = database
            configuration.printer.pagesPerMinute = 100_000
        }
        let (kernel, phone, first) = try World.world(configure)
        for id in 1...3 {
            #expect(try Self.print(kernel, phone, requestID: Int32(id), pages: 1_000).status == .successfulOK)
            kernel.advance(by: .seconds(2))
        }
        let before = try supply(kernel, phone)
        #expect(before.contains("level=85;"))
        _ = try kernel.run("stop mig") { try await first.stop().get() }
        var configuration = MiGServer.Configuration()
        configuration.tlsPort = nil
        configure(&configuration)
        let node = kernel.node("mig")
        let server = try kernel.run("restart mig") { [configuration] in try await MiGServer.start(on: node, configuration: configuration).get() }
        #expect(try server.jobs().map(\.id) == [3], "the log holds only the job kept")
        #expect(try supply(kernel, phone) == before, "three pages used the toner, whichever jobs are remembered")
    }
}
