import IPP
import Testing

/// Round trips over the messages captured from ipptool and ippeveprinter.
@Suite struct FixtureTests {
    @Test func fixturesArePresent() {
        #expect(Fixtures.names.count >= 10, "expected captured fixtures in \(Fixtures.directory)")
        #expect(Fixtures.names.contains(Fixtures.printerAttributesResponse))
    }

    @Test(arguments: Fixtures.names)
    func decodeThenEncodeReproducesTheBytes(name: String) throws {
        let bytes = Fixtures.bytes(name)
        let (message, documentOffset) = try IPPDecoder().decodeWithDocumentOffset(bytes)
        #expect(documentOffset == bytes.count)
        #expect(try message.encoded() == bytes)
        #expect(message.encodedSize == bytes.count)
    }

    /// Rebuilding every attribute from its typed values exercises the value encoders
    /// of every syntax the peers sent, nested collections and 1setOf included.
    @Test(arguments: Fixtures.names)
    func rebuildingFromTypedValuesReproducesTheBytes(name: String) throws {
        let bytes = Fixtures.bytes(name)
        let message = try IPPDecoder().decode(bytes)
        var rebuilt = IPPMessage(version: message.version, code: message.code, requestID: message.requestID)
        for group in message.groups {
            rebuilt.addGroup(group.tag) { builder in
                for attribute in group {
                    builder.add(attribute.name, values: attribute.values)
                }
            }
        }
        #expect(try rebuilt.encoded() == bytes)
        #expect(rebuilt == message)
    }

    @Test(arguments: Fixtures.names)
    func documentDataAfterTheMessageIsNotPartOfIt(name: String) throws {
        let bytes = Fixtures.bytes(name)
        let withDocument = bytes + Array("%PDF-1.4 document bytes".utf8)
        let (message, documentOffset) = try IPPDecoder().decodeWithDocumentOffset(withDocument)
        #expect(documentOffset == bytes.count)
        #expect(try message.encoded() == bytes)
    }

    @Test func printerAttributesResponseFromIppeveprinter() throws {
        let message = try IPPDecoder().decode(Fixtures.bytes(Fixtures.printerAttributesResponse))
        #expect(message.version == .v2_0)
        #expect(message.status == .successfulOK)
        #expect(message.attributesCharset == "utf-8")
        #expect(message.attributesNaturalLanguage == "en")
        let printer = try #require(message.group(.printer))
        #expect(printer.count > 80)
        #expect(printer["printer-name"]?.stringValue == "Workbench Fixture Printer")
        #expect(printer["printer-state"]?.tag == .enum)
        #expect(printer["printer-state"]?.integerValue == 3)
        #expect(printer["printer-current-time"]?.tag == .dateTime)
        #expect(printer["copies-supported"]?.values == [.rangeOfInteger(IPPRange(1, 999))])
        #expect(printer["operations-supported"]?.integerValues.contains(Int32(IPPOperation.printJob.rawValue)) == true)

        let database = try #require(printer["media-col-database"])
        #expect(database.tag == .begCollection)
        #expect(database.count >= 3)
        let first = try #require(database.values.first?.collectionValue)
        let size = try #require(first["media-size"]?.first?.collectionValue)
        #expect(size["x-dimension"]?.first?.integerValue != nil)
        #expect(size["y-dimension"]?.first?.integerValue != nil)
    }

    @Test func requestsFromIpptool() throws {
        let request = try IPPDecoder().decode(Fixtures.bytes(Fixtures.printerAttributesRequest))
        #expect(request.operation == .getPrinterAttributes)
        #expect(request.validateRequest() == nil)
        #expect(request.printerURI?.hasPrefix("ipp://localhost:") == true)
        #expect(request.requestedAttributes == ["all", "media-col-database"])

        let printJob = try IPPDecoder().decode(Fixtures.bytes("print-job-01-print-job-request.ipp"))
        #expect(printJob.operation == .printJob)
        #expect(printJob.requestingUserName != nil)
        #expect(printJob.documentFormat == "application/pdf")
        #expect(printJob.copies == 1)

        let response = try IPPDecoder().decode(Fixtures.bytes("print-job-01-print-job-response.ipp"))
        #expect(response.requestID == printJob.requestID)
        #expect(response.status.isSuccessful)
        #expect(response.jobID ?? 0 > 0)
    }

    @Test func assortedSyntaxesSentByIpptool() throws {
        let message = try IPPDecoder().decode(Fixtures.bytes("syntax-01-validate-job-request.ipp"))
        #expect(message.jobName == "Syntax coverage")
        #expect(message.ippAttributeFidelity == false)
        #expect(message.compression == "none")
        #expect(message.sides == "two-sided-long-edge")
        #expect(message.media == "iso_a4_210x297mm")
        #expect(message.pageRanges == [IPPRange(1, 3), IPPRange(5, 5)])
        let job = try #require(message.group(.job))
        #expect(job["printer-resolution"]?.value == .resolution(IPPResolution(crossFeed: 600, feed: 600)))
        #expect(job["x-workbench-octets"]?.value == .octetString(Array("raw bytes".utf8)))
        #expect(job["x-workbench-text-with-language"]?.value == .textWithLanguage("hello", language: ""))
        #expect(job["x-workbench-no-value"]?.value == .outOfBand(.noValue))
        #expect(job["x-workbench-unknown"]?.value == .outOfBand(.unknown))
        #expect(
            job["x-workbench-date-time"]?.value
                == .dateTime(IPPDateTime(year: 2024, month: 3, day: 1, hour: 12, minutes: 30, seconds: 0)))
        let mediaCol = try #require(job["media-col"]?.value.collectionValue)
        #expect(mediaCol.map(\.name) == ["media-size", "media-type", "media-top-margin"])
        #expect(mediaCol["media-top-margin"] == [.integer(0), .integer(300)])
    }

    @Test func repeatedJobGroupsInGetJobsResponse() throws {
        let message = try IPPDecoder().decode(Fixtures.bytes("syntax-04-get-jobs-response.ipp"))
        let jobs = message.groups(.job)
        #expect(jobs.count >= 2)
        #expect(jobs.allSatisfy { $0.jobID != nil })
        #expect(Set(jobs.compactMap(\.jobID)).count == jobs.count)
    }
}
