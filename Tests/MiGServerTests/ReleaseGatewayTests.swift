import IPP
import Kernel
import MiGServer
import NIOHTTP1
import TestSupport
import Testing
import Wire
import WireHTTP

/// What a print-release gateway must get right: it never prints (nor counts) bytes it cannot read, it holds what it
/// is asked to hold wherever the client puts the request, it holds every job when configured to, and it answers only
/// what was asked for.
@Suite struct ReleaseGatewayTests {
    typealias T = MiGServerTests
    typealias A = MiGAdvertisedTests

    /// 4,096 random bytes, from a seeded stream so the test is the same every run.
    static func randomBytes() -> [UInt8] {
        var generator = RandomStream(seed: 51, name: "random-document")
        return (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) }
    }

    // MARK: auto-sensing

    @Test(arguments: ["random", "text"]) func bytesOfNoFormatSentAsOctetStreamAreRefusedNotCounted(kind: String) throws {
        let (kernel, phone, server) = try T.world()
        let document = kind == "random" ? Self.randomBytes() : Array("Quarterly report\nLine two of plain text.\n".utf8)
        let answer = try T.ipp(try T.post(kernel, phone, try T.printJob(document: document)))
        #expect(answer.status == .documentFormatNotSupported)
        #expect(answer.statusMessage?.contains("auto-sensing recognised none of the formats MiG prints") == true, "\(answer)")
        #expect(answer.group(.job)?["job-state-reasons"]?.stringValues == ["unsupported-document-format"])
        kernel.advance(by: .seconds(10))
        let job = try #require(try server.jobs().first)
        #expect(job.state == .aborted)
        #expect(job.impressions == 0 && job.impressionsCompleted == 0)
        #expect(job.formatDetected == nil)
        #expect(kernel.trace.all.contains { $0.event == "unsupported-document-format" })
        #expect(!kernel.trace.all.contains { $0.event == "job-completed" })
    }

    @Test func aPDFSentAsOctetStreamIsDetectedAndItsPagesCounted() throws {
        let (kernel, phone, server) = try T.world()
        let answer = try T.ipp(try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 3))))
        #expect(answer.status == .successfulOK)
        kernel.advance(by: .seconds(10))
        let job = try A.jobAttributes(kernel, phone, 1)
        #expect(job["job-state"]?.integerValue == IPPJobState.completed.rawValue)
        #expect(job["document-format-supplied"]?.stringValue == "application/octet-stream")
        #expect(job["document-format-detected"]?.stringValue == "application/pdf")
        #expect(job["job-impressions-completed"]?.integerValue == 3)
        #expect(try server.jobs().first?.formatDetected == "application/pdf")
    }

    @Test func aDeclaredFormatIsNotReportedAsDetected() throws {
        let (kernel, phone, _) = try T.world()
        _ = try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 1), format: "application/pdf"))
        #expect(try A.jobAttributes(kernel, phone, 1)["document-format-detected"] == nil)
    }

    // MARK: holds

    /// As ipptool's print-job-hold.test sends it, and as cupsd takes it: job-hold-until in the operation group.
    @Test func jobHoldUntilInTheOperationGroupHoldsTheJobUntilReleased() throws {
        let (kernel, phone, server) = try T.world()
        var request = IPPMessage.request(.printJob, requestID: 1) { op in
            op.addPrinterURI("ipp://mig/ipp/print")
            op.addRequestingUserName("demo")
            op.add("job-hold-until", .keyword("indefinite"))
            op.addJobName("held.pdf")
        }
        request.addGroup(.job)
        let printed = try A.send(kernel, phone, request, document: TestDocuments.pdf(pages: 2))
        #expect(printed.status == .successfulOK)
        #expect(printed.group(.job)?["job-state"]?.integerValue == IPPJobState.pendingHeld.rawValue)
        kernel.advance(by: .seconds(30))
        let held = try A.jobAttributes(kernel, phone, 1)
        #expect(held["job-state"]?.integerValue == IPPJobState.pendingHeld.rawValue)
        #expect(held["job-state-reasons"]?.stringValues == ["job-hold-until-specified"])
        #expect(held["job-hold-until"]?.stringValue == "indefinite")
        #expect(try A.send(kernel, phone, A.request(.releaseJob, job: 1)).status == .successfulOK)
        kernel.advance(by: .seconds(5))
        #expect(try server.jobs().first?.state == .completed)
    }

    @Test func anOperationAttributeMiGDoesNotHonourIsAnsweredNotDropped() throws {
        let (kernel, phone, _) = try T.world()
        var request = IPPMessage.request(.printJob, requestID: 1) { op in
            op.addPrinterURI("ipp://mig/ipp/print")
            op.add("job-password", .octetString(Array("1234".utf8)))
            // A value MiG does not offer, where cupsd would take it: answered whole in the unsupported group.
            op.add("job-hold-until", .keyword("weekend"))
        }
        request.addGroup(.job)
        let answer = try A.send(kernel, phone, request, document: TestDocuments.pdf(pages: 1))
        #expect(answer.status == .successfulOKIgnoredOrSubstitutedAttributes)
        let unsupported = try #require(answer.group(.unsupported))
        #expect(unsupported["job-password"]?.value == .outOfBand(.unsupported))
        #expect(unsupported["job-hold-until"]?.stringValue == "weekend")
        #expect(try A.jobAttributes(kernel, phone, 1)["job-hold-until"]?.stringValue == "no-hold")
    }

    @Test func holdByDefaultHoldsEveryJobUntilReleased() throws {
        let (kernel, phone, server) = try T.world { $0.printer.holdByDefault = true }
        let printer = try A.send(
            kernel, phone, A.request(.getPrinterAttributes) { $0.addRequestedAttributes(["job-hold-until-default", "job-hold-until-supported"]) })
        #expect(printer.group(.printer)?["job-hold-until-default"]?.stringValue == "indefinite")
        #expect(printer.group(.printer)?["job-hold-until-supported"]?.stringValues == ["indefinite"])
        // Asked for nothing: held. Asked not to be held: held all the same, and told so.
        #expect(try T.ipp(try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 1)))).status == .successfulOK)
        let insisting = try T.ipp(
            try T.post(
                kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 1), requestID: 2) { $0.add("job-hold-until", .keyword("no-hold")) }))
        #expect(insisting.status == .successfulOKIgnoredOrSubstitutedAttributes)
        #expect(insisting.group(.unsupported)?["job-hold-until"]?.stringValue == "no-hold")
        kernel.advance(by: .seconds(60))
        #expect(try server.jobs().map(\.state) == [.pendingHeld, .pendingHeld])
        #expect(try A.jobAttributes(kernel, phone, 2)["job-hold-until"]?.stringValue == "indefinite")
        #expect(try A.send(kernel, phone, A.request(.releaseJob, job: 2)).status == .successfulOK)
        kernel.advance(by: .seconds(5))
        #expect(try server.jobs().map(\.state) == [.pendingHeld, .completed])
    }

    // MARK: Get-Jobs and Cancel-My-Jobs per user

    static let alice = BasicCredentials(user: "alice", password: "alice-password").headerValue

    @Test func getJobsAnswersWhichJobsAndMyJobsPerRequestingUser() throws {
        let (kernel, phone, _) = try T.world {
            $0.accounts.append(MiGServer.AccountSetting(user: "alice", password: "alice-password"))
        }
        let asAlice: HTTPHeaders = ["Authorization": Self.alice, "Content-Type": "application/ipp"]
        // demo: job 1 prints, job 2 held; alice: job 3 held.
        _ = try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 1)))
        kernel.advance(by: .seconds(5))
        let hold = { (job: inout IPPGroupBuilder) in job.add("job-hold-until", .keyword("indefinite")) }
        _ = try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 1), hold))
        _ = try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 1), hold), headers: asAlice)
        func ids(
            _ which: String?, mine: Bool, headers: HTTPHeaders = ["Authorization": T.demo, "Content-Type": "application/ipp"]
        ) throws -> [Int32?] {
            let request = A.request(.getJobs) { op in
                if let which { op.add("which-jobs", .keyword(which)) }
                if mine { op.add("my-jobs", .boolean(true)) }
            }
            return try A.send(kernel, phone, request, headers: headers).groups(.job).map(\.jobID)
        }
        #expect(try ids(nil, mine: false) == [2, 3], "not-completed by default")
        #expect(try ids("not-completed", mine: false) == [2, 3])
        #expect(try ids("completed", mine: false) == [1])
        #expect(try ids("all", mine: false) == [1, 2, 3])
        #expect(try ids("all", mine: true) == [1, 2])
        #expect(try ids("all", mine: true, headers: asAlice) == [3])
        #expect(try ids("completed", mine: true, headers: asAlice) == [])
        // Cancel-My-Jobs cancels the caller's own unfinished jobs, no one else's.
        #expect(try A.send(kernel, phone, A.request(.cancelMyJobs), headers: asAlice).status == .successfulOK)
        #expect(try ids("not-completed", mine: false) == [2])
        #expect(try A.jobAttributes(kernel, phone, 3)["job-state"]?.integerValue == IPPJobState.canceled.rawValue)
    }

    // MARK: asked-for attributes and advertised media

    @Test func mediaColDatabaseIsReturnedOnlyWhenAskedForByName() throws {
        let (kernel, phone, _) = try T.world()
        func printer(_ requested: [String]?) throws -> IPPAttributeGroup {
            try #require(
                try A.send(kernel, phone, A.request(.getPrinterAttributes) { op in if let requested { op.addRequestedAttributes(requested) } })
                    .group(.printer))
        }
        for requested in [nil, ["all"], ["job-template"], ["printer-description"]] {
            let group = try printer(requested)
            #expect(group["media-col-database"] == nil, "requested \(requested ?? [])")
        }
        #expect(try printer(["job-template"])["media-col-ready"] != nil)
        #expect(try printer(["all", "media-col-database"])["media-col-database"]?.count == 4)
        #expect(try printer(["media-col-database"]).map(\.name) == ["media-col-database"])
    }

    @Test func overridesNameDocumentNumbersEitherWay() throws {
        let (kernel, phone, _) = try T.world()
        let printer = try A.send(kernel, phone, A.request(.getPrinterAttributes) { $0.addRequestedAttributes(["overrides-supported"]) })
        #expect(printer.group(.printer)?["overrides-supported"]?.stringValues == ["document-number", "document-numbers", "pages"])
        for member in ["document-number", "document-numbers"] {
            let override = IPPValue.collection(
                IPPCollection { col in
                    col.add(member, .rangeOfInteger(IPPRange(1, 1)))
                    col.add("sides", .keyword("one-sided"))
                })
            let answer = try T.ipp(try T.post(kernel, phone, try T.printJob(document: TestDocuments.pdf(pages: 1)) { $0.add("overrides", override) }))
            #expect(answer.status == .successfulOK, "\(member)")
        }
    }

    @Test func aRasterPageForMediaMiGDoesNotHaveAbortsItsJob() throws {
        let (kernel, phone, server) = try T.world()
        // 4×6 inches: 288 × 432 points; MiG advertises A4, A3, Letter and Legal.
        let postcard = TestDocuments.pwgRaster(pages: 1, dpi: 300, size: (288, 432))
        let answer = try T.ipp(try T.post(kernel, phone, try T.printJob(document: postcard, format: "image/pwg-raster")))
        #expect(answer.status == .documentFormatError)
        #expect(answer.statusMessage?.contains("a page is 288×432 pt (101.6×152.4 mm), none of the media MiG has") == true, "\(answer)")
        kernel.advance(by: .seconds(5))
        #expect(try server.jobs().first?.state == .aborted)
        #expect(try server.jobs().first?.impressionsCompleted == 0)
        // Letter, landscape or portrait, prints.
        for size in [(612, 792), (792, 612)] {
            let letter = TestDocuments.pwgRaster(pages: 2, dpi: 300, size: size)
            #expect(try T.ipp(try T.post(kernel, phone, try T.printJob(document: letter, format: "image/pwg-raster"))).status == .successfulOK)
        }
        kernel.advance(by: .seconds(10))
        #expect(try server.jobs().map(\.state) == [.aborted, .completed, .completed])
    }
}
