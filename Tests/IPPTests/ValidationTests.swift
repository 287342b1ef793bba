import IPP
import Testing

/// The request checks that ipptool's ipp-1.1.test probes.
@Suite struct ValidationTests {
    @Test func requestIDZeroFromIpptoolIsABadRequest() throws {
        let request = try IPPDecoder().decode(Fixtures.bytes("syntax-02-get-printer-attributes-request.ipp"))
        #expect(request.requestID == 0)
        #expect(request.validateRequest()?.status == .badRequest)
        // What ippeveprinter answered to the same request.
        let response = try IPPDecoder().decode(Fixtures.bytes("syntax-02-get-printer-attributes-response.ipp"))
        #expect(response.status == .badRequest)
    }

    @Test func versionZeroFromIpptoolIsNotSupported() throws {
        let request = try IPPDecoder().decode(Fixtures.bytes("syntax-03-get-printer-attributes-request.ipp"))
        #expect(request.version == IPPVersion(major: 0, minor: 0))
        #expect(request.validateRequest()?.status == .versionNotSupported)
        let response = try IPPDecoder().decode(Fixtures.bytes("syntax-03-get-printer-attributes-response.ipp"))
        #expect(response.status == .versionNotSupported)
        #expect(response.requestID == request.requestID)
    }

    @Test func charsetAndLanguageMustComeFirstInOrder() {
        var missing = IPPMessage(code: IPPOperation.getPrinterAttributes.rawValue, requestID: 1)
        missing.addGroup(.operation) { op in
            op.add("attributes-natural-language", .naturalLanguage("en"))
            op.addPrinterURI("ipp://localhost/")
        }
        #expect(missing.validateRequest()?.status == .badRequest)

        var swapped = IPPMessage(code: IPPOperation.getPrinterAttributes.rawValue, requestID: 1)
        swapped.addGroup(.operation) { op in
            op.add("attributes-natural-language", .naturalLanguage("en"))
            op.add("attributes-charset", .charset("utf-8"))
        }
        #expect(swapped.validateRequest() == IPPRequestProblem(.badRequest, "Missing attributes-charset: it must be the first operation attribute."))

        var noLanguage = IPPMessage(code: IPPOperation.getPrinterAttributes.rawValue, requestID: 1)
        noLanguage.addGroup(.operation) { op in
            op.add("attributes-charset", .charset("utf-8"))
            op.addPrinterURI("ipp://localhost/")
        }
        #expect(noLanguage.validateRequest()?.status == .badRequest)

        var wrongSyntax = IPPMessage(code: IPPOperation.getPrinterAttributes.rawValue, requestID: 1)
        wrongSyntax.addGroup(.operation) { op in
            op.add("attributes-charset", .keyword("utf-8"))
            op.add("attributes-natural-language", .naturalLanguage("en"))
        }
        #expect(wrongSyntax.validateRequest()?.status == .badRequest)

        var noGroups = IPPMessage(code: IPPOperation.getPrinterAttributes.rawValue, requestID: 1)
        #expect(noGroups.validateRequest()?.status == .badRequest)
        noGroups.addGroup(.job)
        #expect(noGroups.validateRequest()?.status == .badRequest)
    }

    @Test func otherCharsetsAndDuplicates() {
        let latin1 = IPPMessage.request(.getPrinterAttributes, requestID: 1, charset: "iso-8859-1")
        #expect(latin1.validateRequest()?.status == .charsetNotSupported)

        let duplicate = IPPMessage.request(.getPrinterAttributes, requestID: 1) { op in
            op.addPrinterURI("ipp://localhost/a")
            op.addPrinterURI("ipp://localhost/b")
        }
        #expect(duplicate.validateRequest() == IPPRequestProblem(.badRequest, "Attribute printer-uri appears more than once in the operation group."))

        let fine = IPPMessage.request(.getPrinterAttributes, requestID: 1, version: .v1_1)
        #expect(fine.validateRequest() == nil)
        #expect(fine.validateRequest(supportedVersions: [.v2_0])?.status == .versionNotSupported)
    }
}
