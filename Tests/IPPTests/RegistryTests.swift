import IPP
import Testing

/// Registered codes and tags carry their RFC names, and names map back.
@Suite struct RegistryTests {
    @Test func statusNames() {
        #expect(IPPStatus.successfulOK.name == "successful-ok")
        #expect(IPPStatus.notFound.name == "client-error-not-found")
        #expect(IPPStatus.notFound.rawValue == 0x0406)
        #expect(IPPStatus.busy.name == "server-error-busy")
        #expect(IPPStatus.versionNotSupported.rawValue == 0x0503)
        #expect(IPPStatus(name: "client-error-document-format-not-supported") == .documentFormatNotSupported)
        #expect(IPPStatus(rawValue: 0x04FF).description == "status-0x04FF")
        #expect(IPPStatus.badRequest.isClientError && !IPPStatus.badRequest.isSuccessful)
        #expect(IPPStatus.internalError.isServerError)
        for status in IPPStatus.allRegistered {
            #expect(IPPStatus(name: status.name ?? "") == status)
        }
    }

    @Test func operationNames() {
        #expect(IPPOperation.printJob.rawValue == 0x0002)
        #expect(IPPOperation.getPrinterAttributes.name == "Get-Printer-Attributes")
        #expect(IPPOperation.cancelMyJobs.rawValue == 0x0039)
        #expect(IPPOperation.closeJob.rawValue == 0x003B)
        #expect(IPPOperation.identifyPrinter.rawValue == 0x003C)
        #expect(IPPOperation(name: "get-jobs") == .getJobs)
        #expect(IPPOperation(rawValue: 0x7777).name == nil)
        for operation in IPPOperation.allRegistered {
            #expect(IPPOperation(name: operation.name ?? "") == operation)
        }
    }

    @Test func tagNames() {
        #expect(IPPGroupTag.operation.name == "operation-attributes-tag")
        #expect(IPPGroupTag(name: "job") == .job)
        #expect(IPPGroupTag(name: "unsupported-attributes-tag") == .unsupported)
        #expect(!IPPGroupTag.endOfAttributes.isGroup)
        #expect(IPPValueTag.noValue.name == "no-value")
        #expect(IPPValueTag.noValue.isOutOfBand)
        #expect(IPPValueTag(name: "rangeOfInteger") == .rangeOfInteger)
        #expect(IPPValueTag(name: "begCollection") == .begCollection)
        #expect(IPPValueTag(rawValue: 0x1234).description == "tag-0x1234")
        let outOfBand: [IPPValueTag] = [.unsupported, .unknown, .noValue, .notSettable, .deleteAttribute, .adminDefine]
        #expect(outOfBand.map(\.rawValue) == [0x10, 0x12, 0x13, 0x15, 0x16, 0x17])
    }
}
