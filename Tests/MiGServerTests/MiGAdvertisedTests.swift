import Foundation
import IPP
import Kernel
import MiGServer
import NIOCore
import NIOHTTP1
import TestSupport
import Testing
import Wire
import WireHTTP

/// What MiG advertises, it does: multiple-operation-time-out, job-hold-until with Hold-Job and Release-Job, every
/// accepted job-template value reported back, counters that never go back, requests on a job's own URI, and
/// discovery without credentials when allowed.
@Suite struct MiGAdvertisedTests {
    typealias T = MiGServerTests

    static func send(
        _ kernel: Kernel, _ phone: Node, _ message: IPPMessage, document: [UInt8] = [], path: String = "/ipp/print",
        headers: HTTPHeaders = ["Authorization": T.demo, "Content-Type": "application/ipp"]
    ) throws -> IPPMessage {
        try T.ipp(try T.post(kernel, phone, try IPPEncoder().encode(message) + document, headers: headers, path: path))
    }

    static func request(_ operation: IPPOperation, job: Int32? = nil, _ build: (inout IPPGroupBuilder) -> Void = { _ in }) -> IPPMessage {
        IPPMessage.request(operation, requestID: 7) { op in
            op.addPrinterURI("ipp://mig/ipp/print")
            op.addRequestingUserName("demo")
            if let job { op.addJobID(job) }
            build(&op)
        }
    }

    static func jobAttributes(_ kernel: Kernel, _ phone: Node, _ id: Int32) throws -> IPPAttributeGroup {
        let answer = try Self.send(kernel, phone, Self.request(.getJobAttributes, job: id))
        #expect(answer.status == .successfulOK)
        return try #require(answer.group(.job))
    }

    @Test func aCreateJobWithoutItsDocumentIsAbortedAfterTheTimeOut() throws {
        let (kernel, phone, server) = try T.world()
        let printer = try Self.send(
            kernel, phone,
            Self.request(.getPrinterAttributes) { $0.addRequestedAttributes(["multiple-operation-time-out", "multiple-operation-time-out-action"]) })
        #expect(printer.group(.printer)?["multiple-operation-time-out"]?.integerValue == 60)
        #expect(printer.group(.printer)?["multiple-operation-time-out-action"]?.stringValue == "abort-job")
        var create = Self.request(.createJob)
        create.addGroup(.job)
        let created = try Self.send(kernel, phone, create)
        #expect(created.status == .successfulOK)
        kernel.advance(by: .seconds(59))
        #expect(try server.jobs().first?.state == .pending)
        kernel.advance(by: .seconds(2))
        let job = try #require(try server.jobs().first)
        #expect(job.state == .aborted)
        #expect(job.reasons == ["aborted-by-system"])
        #expect(kernel.trace.all.contains { $0.event == "job-timed-out" })
        // Too late for its document now.
        let late = try Self.send(kernel, phone, Self.request(.sendDocument, job: 1) { $0.addLastDocument(true) }, document: [1, 2, 3])
        #expect(late.status == .notPossible)
    }

    @Test func eachSendDocumentRestartsTheTimeOutAndTheLastOneEndsIt() throws {
        let (kernel, phone, server) = try T.world()
        var create = Self.request(.createJob)
        create.addGroup(.job)
        #expect(try Self.send(kernel, phone, create).status == .successfulOK)
        kernel.advance(by: .seconds(50))
        let sent = try Self.send(
            kernel, phone, Self.request(.sendDocument, job: 1) { $0.addLastDocument(true) }, document: try T.document(1000))
        #expect(sent.status == .successfulOK)
        kernel.advance(by: .seconds(30))
        let job = try #require(try server.jobs().first)
        #expect(job.state == .completed)
        #expect(!kernel.trace.all.contains { $0.event == "job-timed-out" })
    }

    @Test func aJobHeldIndefinitelyPrintsOnlyWhenReleased() throws {
        let (kernel, phone, server) = try T.world()
        let printer = try Self.send(
            kernel, phone, Self.request(.getPrinterAttributes) { $0.addRequestedAttributes(["job-hold-until-supported", "operations-supported"]) })
        #expect(printer.group(.printer)?["job-hold-until-supported"]?.stringValues == ["no-hold", "indefinite"])
        let operations = printer.group(.printer)?["operations-supported"]?.integerValues ?? []
        #expect(operations.contains(Int32(IPPOperation.holdJob.rawValue)) && operations.contains(Int32(IPPOperation.releaseJob.rawValue)))

        let printed = try T.ipp(
            try T.post(kernel, phone, try T.printJob(document: try T.document(1000)) { $0.add("job-hold-until", .keyword("indefinite")) })
        )
        #expect(printed.status == .successfulOK)
        kernel.advance(by: .seconds(30))
        var held = try Self.jobAttributes(kernel, phone, 1)
        #expect(held["job-state"]?.integerValue == IPPJobState.pendingHeld.rawValue)
        #expect(held["job-state-reasons"]?.stringValues == ["job-hold-until-specified"])
        #expect(held["job-hold-until"]?.stringValue == "indefinite")

        #expect(try Self.send(kernel, phone, Self.request(.releaseJob, job: 1)).status == .successfulOK)
        kernel.advance(by: .seconds(5))
        held = try Self.jobAttributes(kernel, phone, 1)
        #expect(held["job-state"]?.integerValue == IPPJobState.completed.rawValue)
        #expect(held["job-hold-until"]?.stringValue == "no-hold")
        #expect(try server.jobs().first?.impressionsCompleted == 1)
        // Released already: nothing to release, and a finished job cannot be held.
        #expect(try Self.send(kernel, phone, Self.request(.releaseJob, job: 1)).status == .notPossible)
        #expect(try Self.send(kernel, phone, Self.request(.holdJob, job: 1)).status == .notPossible)
    }

    @Test func holdJobHoldsAPendingJobAndRefusesOtherHoldValues() throws {
        let (kernel, phone, server) = try T.world()
        var create = Self.request(.createJob)
        create.addGroup(.job)
        #expect(try Self.send(kernel, phone, create).status == .successfulOK)
        let timed = try Self.send(kernel, phone, Self.request(.holdJob, job: 1) { $0.add("job-hold-until", .keyword("evening")) })
        #expect(timed.status == .attributesOrValuesNotSupported)
        #expect(timed.group(.unsupported)?["job-hold-until"]?.stringValue == "evening")
        #expect(try Self.send(kernel, phone, Self.request(.holdJob, job: 1)).status == .successfulOK)
        #expect(
            try Self.send(kernel, phone, Self.request(.sendDocument, job: 1) { $0.addLastDocument(true) }, document: TestDocuments.pdf(pages: 1))
                .status == .successfulOK)
        kernel.advance(by: .seconds(10))
        #expect(try server.jobs().first?.state == .pendingHeld)
        #expect(try server.jobs().first?.reasons == ["job-hold-until-specified"])
        #expect(try Self.send(kernel, phone, Self.request(.releaseJob, job: 1)).status == .successfulOK)
        kernel.advance(by: .seconds(5))
        #expect(try server.jobs().first?.state == .completed)
    }

    @Test func everyAcceptedJobTemplateValueIsReportedBack() throws {
        let (kernel, phone, _) = try T.world()
        let body = try T.printJob(document: TestDocuments.pdf(pages: 1)) { job in
            job.add("print-color-mode", .keyword("monochrome"))
            job.add("print-quality", .enumValue(5))
            job.add("orientation-requested", .enumValue(4))
            job.add("printer-resolution", .resolution(IPPResolution(crossFeed: 600, feed: 600)))
            job.add("print-content-optimize", .keyword("text"))
            job.add("job-priority", .integer(80))
            job.addSides("two-sided-long-edge")
        }
        #expect(try T.ipp(try T.post(kernel, phone, body)).status == .successfulOK)
        let job = try Self.jobAttributes(kernel, phone, 1)
        #expect(job["print-color-mode"]?.stringValue == "monochrome")
        #expect(job["print-quality"]?.integerValue == 5)
        #expect(job["orientation-requested"]?.integerValue == 4)
        #expect(job["printer-resolution"]?.value == .resolution(IPPResolution(crossFeed: 600, feed: 600)))
        #expect(job["print-content-optimize"]?.stringValue == "text")
        #expect(job["job-priority"]?.integerValue == 80)
        #expect(job["sides"]?.stringValue == "two-sided-long-edge")
        #expect(job["job-hold-until"]?.stringValue == "no-hold")
        // No job-more-info: MiG serves no page per job, so it names none.
        #expect(job["job-more-info"] == nil)
    }

    @Test func aValueThePrinterDoesNotOfferIsNotAcceptedSilently() throws {
        let (kernel, phone, _) = try T.world()
        // color on a monochrome printer, 3-up on a printer that puts 1, 2 or 4 pages on a side
        let body = try T.printJob(document: TestDocuments.pdf(pages: 1)) { job in
            job.add("print-color-mode", .keyword("color"))
            job.add("number-up", .integer(3))
        }
        let answer = try T.ipp(try T.post(kernel, phone, body))
        #expect(answer.status == .successfulOKIgnoredOrSubstitutedAttributes)
        #expect(answer.group(.unsupported)?["print-color-mode"]?.stringValue == "color")
        #expect(answer.group(.unsupported)?["number-up"]?.integerValue == 3)
        let job = try Self.jobAttributes(kernel, phone, 1)
        #expect(job["print-color-mode"] == nil)
        #expect(job["number-up"] == nil)
    }

    @Test func numberUpPutsPagesOnEachImpressionAndSidesPutImpressionsOnSheets() throws {
        let (kernel, phone, _) = try T.world()
        // 5 pages, 2 up: 3 impressions a copy; two-sided: 2 sheets a copy.
        _ = try T.post(
            kernel, phone,
            try T.printJob(document: TestDocuments.pdf(pages: 5)) { job in
                job.add("number-up", .integer(2))
                job.addSides("two-sided-long-edge")
                job.addCopies(2)
            })
        kernel.advance(by: .seconds(30))
        let job = try Self.jobAttributes(kernel, phone, 1)
        #expect(job["job-state"]?.integerValue == IPPJobState.completed.rawValue)
        #expect(job["number-up"]?.integerValue == 2)
        #expect(job["job-impressions-completed"]?.integerValue == 6)
        #expect(job["job-media-sheets-completed"]?.integerValue == 4)
    }

    @Test func aCanceledJobKeepsThePagesItPrinted() throws {
        let (kernel, phone, server) = try T.world()
        _ = try T.post(kernel, phone, try T.printJob(document: try T.document(1_000_000)))
        kernel.advance(by: .milliseconds(3500))  // pages 1, 2 and 3 printed
        #expect(try Self.jobAttributes(kernel, phone, 1)["job-impressions-completed"]?.integerValue == 3)
        #expect(try Self.send(kernel, phone, Self.request(.cancelJob, job: 1)).status == .successfulOK)
        let job = try Self.jobAttributes(kernel, phone, 1)
        #expect(job["job-state"]?.integerValue == IPPJobState.canceled.rawValue)
        #expect(job["job-impressions-completed"]?.integerValue == 3)
        #expect(try server.jobs().first?.impressionsCompleted == 3)
    }

    @Test func anAbortedJobKeepsThePagesItPrinted() throws {
        let (kernel, phone, server) = try T.world()
        _ = try T.post(kernel, phone, try T.printJob(document: try T.document(1_000_000)))
        kernel.advance(by: .milliseconds(2500))
        server.node.faults.set("mig.job-abort", .times(1))
        kernel.advance(by: .seconds(1))
        let job = try #require(try server.jobs().first)
        #expect(job.state == .aborted)
        #expect(job.impressionsCompleted == 2)
    }

    @Test func aRestartResumesAfterTheLastPrintedPageAndNoCounterGoesBack() throws {
        let directory = NSTemporaryDirectory() + "mig-restart-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let (kernel, phone, server) = try T.world { $0.databasePath = "\(directory)/mig.sqlite" }
        _ = try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 5)))
        kernel.advance(by: .milliseconds(3500))  // pages 1, 2 and 3 printed, and each written to the spool
        #expect(try Self.jobAttributes(kernel, phone, 1)["job-impressions-completed"]?.integerValue == 3)

        // The printer stops mid-job (the spool left as it was), and the same spool comes up under a new printer
        // process on the same node (whose simulated disk holds the database), as after a crash: the job is queued
        // again and resumes.
        _ = try kernel.run("stop mig") { try await server.stop().get() }
        let node = kernel.node("mig")
        var configuration = MiGServer.Configuration()
        configuration.tlsPort = nil
        configuration.databasePath = "\(directory)/mig.sqlite"
        let restarted = try kernel.run("restart mig") { [configuration] in try await MiGServer.start(on: node, configuration: configuration).get() }
        #expect(try restarted.jobs().first?.impressionsCompleted == 3)
        #expect(kernel.trace.all.contains { $0.event == "spool-recovered" && $0.fields.contains { $0 == ("requeued", "1") } })
        kernel.advance(by: .milliseconds(2500))  // pages 4 and 5
        let job = try #require(try restarted.jobs().first)
        #expect(job.state == .completed)
        #expect(job.impressionsCompleted == 5)
        let completed = kernel.trace.all.filter { $0.event == "job-completed" }
        #expect(completed.count == 1)
        #expect(completed.first?.fields.contains { $0 == ("pages", "5") } == true)
    }

    /// A finished job's document leaves the spool only after the record that no longer names it, and a restart removes
    /// the files no record names (what a kill between the two, or mid-upload, leaves), keeping those a job still needs.
    @Test func aRestartRemovesDocumentsNoJobNamesAndKeepsTheRest() throws {
        let directory = NSTemporaryDirectory() + "mig-orphans-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let configure = { (configuration: inout MiGServer.Configuration) in
            configuration.tlsPort = nil
            configuration.databasePath = "\(directory)/mig.sqlite"
            configuration.spoolDirectory = "\(directory)/spool"
        }
        let (kernel, phone, server) = try T.world(configure)
        // The database and the spool's files are on the node's simulated disk.
        let disk = kernel.disk(of: "mig")
        _ = try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 1)))
        kernel.advance(by: .seconds(3))
        #expect(try server.jobs().first?.state == .completed)
        #expect(!disk.exists("\(directory)/spool/job-1-1.doc"), "a printed job's document is removed")
        _ = try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 5)))
        kernel.advance(by: .seconds(2))
        #expect(try server.jobs().last?.state == .processing)
        _ = try kernel.run("stop mig") { try await server.stop().get() }

        // What a kill leaves: a finished job's file caught before it was removed (here put back by hand) and an upload
        // cut short, named by no record.
        for leftover in ["job-1-1.doc", "job-3-1.doc"] {
            let file = try disk.open("\(directory)/spool/\(leftover)", create: true, boot: disk.boot)
            try disk.write(file, at: 0, Array("c".utf8))
            try disk.sync(file)
        }
        var configuration = MiGServer.Configuration()
        configure(&configuration)
        let node = kernel.node("mig")  // the database is on the node's simulated disk
        let restarted = try kernel.run("restart mig") { [configuration] in try await MiGServer.start(on: node, configuration: configuration).get() }
        let names = disk.paths.filter { $0.hasPrefix("\(directory)/spool/") }.map { String($0.dropFirst(directory.count + 7)) }
        #expect(names == ["job-2-1.doc"], "only the document a job still prints is kept")
        #expect(
            kernel.trace.all.contains { $0.event == "spool-recovered" && $0.fields.contains { $0 == ("orphans-removed", "2") } },
            "\(kernel.trace.all.filter { $0.event == "spool-recovered" }.map(\.fields))")
        kernel.advance(by: .seconds(5))
        #expect(try restarted.jobs().last?.state == .completed, "the kept document prints")
    }

    @Test func requestsOnAJobsOwnURIAreServed() throws {
        let (kernel, phone, _) = try T.world()
        _ = try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 1)))
        let onJob = IPPMessage.request(.getJobAttributes, requestID: 3) { op in
            op.addJobURI("ipp://mig/ipp/print/1")
            op.addRequestingUserName("demo")
        }
        let answer = try Self.send(kernel, phone, onJob, path: "/ipp/print/1")
        #expect(answer.status == .successfulOK)
        #expect(answer.group(.job)?.jobID == 1)
        // Only job ids name jobs: anything else under /ipp/print/ is still not found.
        #expect(try T.post(kernel, phone, try IPPEncoder().encode(onJob), path: "/ipp/print/1x").status == .notFound)
    }

    @Test func anonymousDiscoveryAnswersWhatThePrinterIsButNoJobOperation() throws {
        let anonymous: HTTPHeaders = ["Content-Type": "application/ipp"]
        let (strictKernel, strictPhone, _) = try T.world()
        let refused = try T.post(strictKernel, strictPhone, try IPPEncoder().encode(Self.request(.getPrinterAttributes)), headers: anonymous)
        #expect(refused.status == .unauthorized)

        let (kernel, phone, server) = try T.world { $0.anonymousDiscovery = true }
        let attributes = try Self.send(kernel, phone, Self.request(.getPrinterAttributes), headers: anonymous)
        #expect(attributes.status == .successfulOK)
        #expect(attributes.group(.printer)?["uri-authentication-supported"]?.stringValue == "basic")
        var validate = Self.request(.validateJob)
        validate.addGroup(.job) { $0.addCopies(2) }
        #expect(try Self.send(kernel, phone, validate, headers: anonymous).status == .successfulOK)
        for operation in [IPPOperation.printJob, .getJobs, .createJob] {
            var message = Self.request(operation)
            message.addGroup(.job)
            let answer = try T.post(kernel, phone, try IPPEncoder().encode(message) + (operation == .printJob ? [1, 2, 3] : []), headers: anonymous)
            #expect(answer.status == .unauthorized, "\(operation)")
            #expect(answer.headers.first(name: "WWW-Authenticate") == "Basic realm=\"MiG\"")
        }
        #expect(try server.jobs().isEmpty)
        // Wrong credentials are still wrong, even for discovery.
        let wrong = try T.post(
            kernel, phone, try IPPEncoder().encode(Self.request(.getPrinterAttributes)),
            headers: ["Authorization": BasicCredentials(user: "demo", password: "nope").headerValue, "Content-Type": "application/ipp"])
        #expect(wrong.status == .unauthorized)
        // With credentials, jobs as ever.
        #expect(try T.ipp(try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 1)))).status == .successfulOK)
    }
    @Test func theEverywhereAttributesDescribeTheSimulatedDevice() throws {
        let (kernel, phone, _) = try T.world()
        let everything = IPPMessage.request(.getPrinterAttributes, requestID: 2) { op in
            op.addPrinterURI("ipp://mig/ipp/print")
            op.addRequestedAttributes(["all", "media-col-database"])
        }
        let printer = try #require(try Self.send(kernel, phone, everything).group(.printer))
        let uuid = try #require(printer["printer-uuid"]?.stringValue)
        #expect(uuid == PrinterDescription.uuid(host: "mig", name: "MiG"))
        #expect(uuid.hasPrefix("urn:uuid:") && uuid.count == 45)
        #expect(PrinterDescription.uuid(host: "mig", name: "MiG") != PrinterDescription.uuid(host: "mig2", name: "MiG"))
        let database = printer["media-col-database"]?.values.compactMap(\.collectionValue) ?? []
        #expect(database.count == 4)
        let a4 = try #require(printer["media-col-default"]?.value.collectionValue)
        let size = try #require(a4.first { $0.name == "media-size" }?.values.first?.collectionValue)
        #expect(size.map { $0.values.first?.integerValue } == [21_000, 29_700])
        #expect(a4.first { $0.name == "media-top-margin" }?.values.first?.integerValue == 423)
        #expect(a4.first { $0.name == "media-source" }?.values.first?.stringValue == "main")
        #expect(printer["pwg-raster-document-type-supported"]?.stringValues == ["black_1", "sgray_8"])
        #expect(
            printer["printer-supply"]?.value
                == .octetString(
                    Array("index=1;class=supplyThatIsConsumed;type=toner;unit=percent;maxcapacity=100;level=100;colorantname=black;".utf8)))
        #expect(printer["printer-icons"]?.stringValues == ["http://mig:631/icon-48.png", "http://mig:631/icon-128.png"])
        // The icons are there, as PNG.
        let icon = try kernel.run("GET icon") { try await HTTPClient.send(HTTPRequest(target: "/icon-48.png"), host: "mig", port: 631, on: phone) }
        #expect(icon.status == .ok)
        #expect(icon.headers.first(name: "Content-Type") == "image/png")
        #expect(Array(icon.body.readableBytesView.prefix(8)) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A])
    }

    @Test func tonerRunsDownWithThePagesPrinted() throws {
        let (kernel, phone, _) = try T.world { $0.printer.pagesPerMinute = 6_000 }
        // 400 pages: 2 % of a 20,000-page cartridge.
        _ = try T.post(kernel, phone, try T.printJob(document: try T.document(40_000_000)), chunked: true)
        kernel.advance(by: .seconds(10))
        let printer = try Self.send(kernel, phone, Self.request(.getPrinterAttributes) { $0.addRequestedAttributes(["printer-supply"]) })
        let supply = printer.group(.printer)?["printer-supply"]?.value
        #expect(
            supply
                == .octetString(Array("index=1;class=supplyThatIsConsumed;type=toner;unit=percent;maxcapacity=100;level=98;colorantname=black;".utf8))
        )
    }

    @Test func aMediaColThePrinterHasChoosesTheMediaAndIsReportedBack() throws {
        let (kernel, phone, server) = try T.world()
        let letter = IPPValue.collection(
            IPPCollection { col in
                col.add(
                    "media-size",
                    .collection(
                        IPPCollection {
                            $0.add("x-dimension", .integer(21_590))
                            $0.add("y-dimension", .integer(27_940))
                        }))
                col.add("media-source", .keyword("main"))
                col.add("media-top-margin", .integer(423))
            })
        #expect(
            try T.ipp(try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 1)) { $0.add("media-col", letter) })).status
                == .successfulOK)
        #expect(try server.jobs().first?.media == "na_letter_8.5x11in")
        #expect(try Self.jobAttributes(kernel, phone, 1)["media-col"]?.value == letter)
        let borderless = IPPValue.collection(
            IPPCollection { col in
                col.add(
                    "media-size",
                    .collection(
                        IPPCollection {
                            $0.add("x-dimension", .integer(21_590))
                            $0.add("y-dimension", .integer(27_940))
                        }))
                col.add("media-top-margin", .integer(0))
            })
        let refused = try T.ipp(try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 1)) { $0.add("media-col", borderless) }))
        #expect(refused.status == .successfulOKIgnoredOrSubstitutedAttributes)
        #expect(refused.group(.unsupported)?["media-col"] != nil)
    }
    @Test func getJobsWithJobIDsListsThoseJobs() throws {
        let (kernel, phone, _) = try T.world()
        for _ in 0..<3 { _ = try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 1))) }
        kernel.advance(by: .seconds(10))
        let listed = try Self.send(kernel, phone, Self.request(.getJobs) { $0.add("job-ids", .integer(1), .integer(3)) })
        #expect(listed.status == .successfulOK)
        #expect(listed.groups(.job).map(\.jobID) == [1, 3])
    }
    @Test func aDocumentThePrinterCannotInterpretAbortsItsJobWithDocumentFormatError() throws {
        let (kernel, phone, server) = try T.world()
        server.node.faults.set("mig.document-format-error", .times(1))
        let answer = try T.ipp(try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 2))))
        #expect(answer.status == .documentFormatError)
        #expect(answer.group(.job)?["job-state-reasons"]?.stringValues == ["document-format-error"])
        kernel.advance(by: .seconds(5))
        let job = try #require(try server.jobs().first)
        #expect(job.state == .aborted)
        #expect(job.impressionsCompleted == 0)
        // The next document prints.
        #expect(try T.ipp(try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 2)))).status == .successfulOK)
        kernel.advance(by: .seconds(5))
        #expect(try server.jobs().last?.state == .completed)
        #expect(try server.jobs().last?.impressions == 2)
        // Held jobs are listed by which-jobs=pending-held.
        _ = try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 1)) { $0.add("job-hold-until", .keyword("indefinite")) })
        let held = try Self.send(kernel, phone, Self.request(.getJobs) { $0.add("which-jobs", .keyword("pending-held")) })
        #expect(held.groups(.job).map(\.jobID) == [3])
    }
}
