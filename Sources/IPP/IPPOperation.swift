/// An IPP operation-id (RFC 8011 §5.4.15 and the IANA IPP registry).
///
/// A struct so that unregistered codes read from the wire stay representable.
public struct IPPOperation: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
    /// The operation-id as it is on the wire, e.g. 0x0002 for Print-Job.
    public var rawValue: UInt16
    /// The operation with this operation-id, registered or not.
    public init(rawValue: UInt16) { self.rawValue = rawValue }

    /// Print-Job (0x0002)
    public static let printJob = IPPOperation(rawValue: 0x0002)
    /// Print-URI (0x0003)
    public static let printURI = IPPOperation(rawValue: 0x0003)
    /// Validate-Job (0x0004)
    public static let validateJob = IPPOperation(rawValue: 0x0004)
    /// Create-Job (0x0005)
    public static let createJob = IPPOperation(rawValue: 0x0005)
    /// Send-Document (0x0006)
    public static let sendDocument = IPPOperation(rawValue: 0x0006)
    /// Send-URI (0x0007)
    public static let sendURI = IPPOperation(rawValue: 0x0007)
    /// Cancel-Job (0x0008)
    public static let cancelJob = IPPOperation(rawValue: 0x0008)
    /// Get-Job-Attributes (0x0009)
    public static let getJobAttributes = IPPOperation(rawValue: 0x0009)
    /// Get-Jobs (0x000A)
    public static let getJobs = IPPOperation(rawValue: 0x000A)
    /// Get-Printer-Attributes (0x000B)
    public static let getPrinterAttributes = IPPOperation(rawValue: 0x000B)
    /// Hold-Job (0x000C)
    public static let holdJob = IPPOperation(rawValue: 0x000C)
    /// Release-Job (0x000D)
    public static let releaseJob = IPPOperation(rawValue: 0x000D)
    /// Restart-Job (0x000E)
    public static let restartJob = IPPOperation(rawValue: 0x000E)
    /// Pause-Printer (0x0010)
    public static let pausePrinter = IPPOperation(rawValue: 0x0010)
    /// Resume-Printer (0x0011)
    public static let resumePrinter = IPPOperation(rawValue: 0x0011)
    /// Purge-Jobs (0x0012)
    public static let purgeJobs = IPPOperation(rawValue: 0x0012)
    /// Set-Printer-Attributes (0x0013)
    public static let setPrinterAttributes = IPPOperation(rawValue: 0x0013)
    /// Set-Job-Attributes (0x0014)
    public static let setJobAttributes = IPPOperation(rawValue: 0x0014)
    /// Get-Printer-Supported-Values (0x0015)
    public static let getPrinterSupportedValues = IPPOperation(rawValue: 0x0015)
    /// Create-Printer-Subscriptions (0x0016)
    public static let createPrinterSubscriptions = IPPOperation(rawValue: 0x0016)
    /// Create-Job-Subscriptions (0x0017)
    public static let createJobSubscriptions = IPPOperation(rawValue: 0x0017)
    /// Get-Subscription-Attributes (0x0018)
    public static let getSubscriptionAttributes = IPPOperation(rawValue: 0x0018)
    /// Get-Subscriptions (0x0019)
    public static let getSubscriptions = IPPOperation(rawValue: 0x0019)
    /// Renew-Subscription (0x001A)
    public static let renewSubscription = IPPOperation(rawValue: 0x001A)
    /// Cancel-Subscription (0x001B)
    public static let cancelSubscription = IPPOperation(rawValue: 0x001B)
    /// Get-Notifications (0x001C)
    public static let getNotifications = IPPOperation(rawValue: 0x001C)
    /// Enable-Printer (0x0022)
    public static let enablePrinter = IPPOperation(rawValue: 0x0022)
    /// Disable-Printer (0x0023)
    public static let disablePrinter = IPPOperation(rawValue: 0x0023)
    /// Pause-Printer-After-Current-Job (0x0024)
    public static let pausePrinterAfterCurrentJob = IPPOperation(rawValue: 0x0024)
    /// Hold-New-Jobs (0x0025)
    public static let holdNewJobs = IPPOperation(rawValue: 0x0025)
    /// Release-Held-New-Jobs (0x0026)
    public static let releaseHeldNewJobs = IPPOperation(rawValue: 0x0026)
    /// Deactivate-Printer (0x0027)
    public static let deactivatePrinter = IPPOperation(rawValue: 0x0027)
    /// Activate-Printer (0x0028)
    public static let activatePrinter = IPPOperation(rawValue: 0x0028)
    /// Restart-Printer (0x0029)
    public static let restartPrinter = IPPOperation(rawValue: 0x0029)
    /// Shutdown-Printer (0x002A)
    public static let shutdownPrinter = IPPOperation(rawValue: 0x002A)
    /// Startup-Printer (0x002B)
    public static let startupPrinter = IPPOperation(rawValue: 0x002B)
    /// Reprocess-Job (0x002C)
    public static let reprocessJob = IPPOperation(rawValue: 0x002C)
    /// Cancel-Current-Job (0x002D)
    public static let cancelCurrentJob = IPPOperation(rawValue: 0x002D)
    /// Suspend-Current-Job (0x002E)
    public static let suspendCurrentJob = IPPOperation(rawValue: 0x002E)
    /// Resume-Job (0x002F)
    public static let resumeJob = IPPOperation(rawValue: 0x002F)
    /// Promote-Job (0x0030)
    public static let promoteJob = IPPOperation(rawValue: 0x0030)
    /// Schedule-Job-After (0x0031)
    public static let scheduleJobAfter = IPPOperation(rawValue: 0x0031)
    /// Cancel-Document (0x0033)
    public static let cancelDocument = IPPOperation(rawValue: 0x0033)
    /// Get-Document-Attributes (0x0034)
    public static let getDocumentAttributes = IPPOperation(rawValue: 0x0034)
    /// Get-Documents (0x0035)
    public static let getDocuments = IPPOperation(rawValue: 0x0035)
    /// Delete-Document (0x0036)
    public static let deleteDocument = IPPOperation(rawValue: 0x0036)
    /// Set-Document-Attributes (0x0037)
    public static let setDocumentAttributes = IPPOperation(rawValue: 0x0037)
    /// Cancel-Jobs (0x0038)
    public static let cancelJobs = IPPOperation(rawValue: 0x0038)
    /// Cancel-My-Jobs (0x0039)
    public static let cancelMyJobs = IPPOperation(rawValue: 0x0039)
    /// Resubmit-Job (0x003A)
    public static let resubmitJob = IPPOperation(rawValue: 0x003A)
    /// Close-Job (0x003B)
    public static let closeJob = IPPOperation(rawValue: 0x003B)
    /// Identify-Printer (0x003C)
    public static let identifyPrinter = IPPOperation(rawValue: 0x003C)
    /// Validate-Document (0x003D)
    public static let validateDocument = IPPOperation(rawValue: 0x003D)
    /// Add-Document-Images (0x003E)
    public static let addDocumentImages = IPPOperation(rawValue: 0x003E)
    /// Acknowledge-Document (0x003F)
    public static let acknowledgeDocument = IPPOperation(rawValue: 0x003F)
    /// Acknowledge-Identify-Printer (0x0040)
    public static let acknowledgeIdentifyPrinter = IPPOperation(rawValue: 0x0040)
    /// Acknowledge-Job (0x0041)
    public static let acknowledgeJob = IPPOperation(rawValue: 0x0041)
    /// Fetch-Document (0x0042)
    public static let fetchDocument = IPPOperation(rawValue: 0x0042)
    /// Fetch-Job (0x0043)
    public static let fetchJob = IPPOperation(rawValue: 0x0043)
    /// Get-Output-Device-Attributes (0x0044)
    public static let getOutputDeviceAttributes = IPPOperation(rawValue: 0x0044)
    /// Update-Active-Jobs (0x0045)
    public static let updateActiveJobs = IPPOperation(rawValue: 0x0045)
    /// Deregister-Output-Device (0x0046)
    public static let deregisterOutputDevice = IPPOperation(rawValue: 0x0046)
    /// Update-Document-Status (0x0047)
    public static let updateDocumentStatus = IPPOperation(rawValue: 0x0047)
    /// Update-Job-Status (0x0048)
    public static let updateJobStatus = IPPOperation(rawValue: 0x0048)
    /// Update-Output-Device-Attributes (0x0049)
    public static let updateOutputDeviceAttributes = IPPOperation(rawValue: 0x0049)
    /// Get-Next-Document-Data (0x004A)
    public static let getNextDocumentData = IPPOperation(rawValue: 0x004A)
    /// Allocate-Printer-Resources (0x004B)
    public static let allocatePrinterResources = IPPOperation(rawValue: 0x004B)
    /// Create-Printer (0x004C)
    public static let createPrinter = IPPOperation(rawValue: 0x004C)
    /// Deallocate-Printer-Resources (0x004D)
    public static let deallocatePrinterResources = IPPOperation(rawValue: 0x004D)
    /// Delete-Printer (0x004E)
    public static let deletePrinter = IPPOperation(rawValue: 0x004E)
    /// Get-Printers (0x004F)
    public static let getPrinters = IPPOperation(rawValue: 0x004F)
    /// Shutdown-One-Printer (0x0050)
    public static let shutdownOnePrinter = IPPOperation(rawValue: 0x0050)
    /// Startup-One-Printer (0x0051)
    public static let startupOnePrinter = IPPOperation(rawValue: 0x0051)
    /// Cancel-Resource (0x0052)
    public static let cancelResource = IPPOperation(rawValue: 0x0052)
    /// Create-Resource (0x0053)
    public static let createResource = IPPOperation(rawValue: 0x0053)
    /// Install-Resource (0x0054)
    public static let installResource = IPPOperation(rawValue: 0x0054)
    /// Send-Resource-Data (0x0055)
    public static let sendResourceData = IPPOperation(rawValue: 0x0055)
    /// Set-Resource-Attributes (0x0056)
    public static let setResourceAttributes = IPPOperation(rawValue: 0x0056)
    /// Create-Resource-Subscriptions (0x0057)
    public static let createResourceSubscriptions = IPPOperation(rawValue: 0x0057)
    /// Create-System-Subscriptions (0x0058)
    public static let createSystemSubscriptions = IPPOperation(rawValue: 0x0058)
    /// Disable-All-Printers (0x0059)
    public static let disableAllPrinters = IPPOperation(rawValue: 0x0059)
    /// Enable-All-Printers (0x005A)
    public static let enableAllPrinters = IPPOperation(rawValue: 0x005A)
    /// Get-System-Attributes (0x005B)
    public static let getSystemAttributes = IPPOperation(rawValue: 0x005B)
    /// Get-System-Supported-Values (0x005C)
    public static let getSystemSupportedValues = IPPOperation(rawValue: 0x005C)
    /// Pause-All-Printers (0x005D)
    public static let pauseAllPrinters = IPPOperation(rawValue: 0x005D)
    /// Pause-All-Printers-After-Current-Job (0x005E)
    public static let pauseAllPrintersAfterCurrentJob = IPPOperation(rawValue: 0x005E)
    /// Register-Output-Device (0x005F)
    public static let registerOutputDevice = IPPOperation(rawValue: 0x005F)
    /// Restart-System (0x0060)
    public static let restartSystem = IPPOperation(rawValue: 0x0060)
    /// Resume-All-Printers (0x0061)
    public static let resumeAllPrinters = IPPOperation(rawValue: 0x0061)
    /// Set-System-Attributes (0x0062)
    public static let setSystemAttributes = IPPOperation(rawValue: 0x0062)
    /// Shutdown-All-Printers (0x0063)
    public static let shutdownAllPrinters = IPPOperation(rawValue: 0x0063)
    /// Startup-All-Printers (0x0064)
    public static let startupAllPrinters = IPPOperation(rawValue: 0x0064)
    /// Get-Printer-Resources (0x0065)
    public static let getPrinterResources = IPPOperation(rawValue: 0x0065)
    /// Get-User-Printer-Attributes (0x0066)
    public static let getUserPrinterAttributes = IPPOperation(rawValue: 0x0066)
    /// Restart-One-Printer (0x0067)
    public static let restartOnePrinter = IPPOperation(rawValue: 0x0067)
    /// CUPS-Get-Default (0x4001)
    public static let cupsGetDefault = IPPOperation(rawValue: 0x4001)
    /// CUPS-Get-Printers (0x4002)
    public static let cupsGetPrinters = IPPOperation(rawValue: 0x4002)
    /// CUPS-Add-Modify-Printer (0x4003)
    public static let cupsAddModifyPrinter = IPPOperation(rawValue: 0x4003)
    /// CUPS-Delete-Printer (0x4004)
    public static let cupsDeletePrinter = IPPOperation(rawValue: 0x4004)
    /// CUPS-Get-Classes (0x4005)
    public static let cupsGetClasses = IPPOperation(rawValue: 0x4005)
    /// CUPS-Add-Modify-Class (0x4006)
    public static let cupsAddModifyClass = IPPOperation(rawValue: 0x4006)
    /// CUPS-Delete-Class (0x4007)
    public static let cupsDeleteClass = IPPOperation(rawValue: 0x4007)
    /// CUPS-Accept-Jobs (0x4008)
    public static let cupsAcceptJobs = IPPOperation(rawValue: 0x4008)
    /// CUPS-Reject-Jobs (0x4009)
    public static let cupsRejectJobs = IPPOperation(rawValue: 0x4009)
    /// CUPS-Set-Default (0x400A)
    public static let cupsSetDefault = IPPOperation(rawValue: 0x400A)
    /// CUPS-Get-Devices (0x400B)
    public static let cupsGetDevices = IPPOperation(rawValue: 0x400B)
    /// CUPS-Get-PPDs (0x400C)
    public static let cupsGetPPDs = IPPOperation(rawValue: 0x400C)
    /// CUPS-Move-Job (0x400D)
    public static let cupsMoveJob = IPPOperation(rawValue: 0x400D)
    /// CUPS-Authenticate-Job (0x400E)
    public static let cupsAuthenticateJob = IPPOperation(rawValue: 0x400E)
    /// CUPS-Get-PPD (0x400F)
    public static let cupsGetPPD = IPPOperation(rawValue: 0x400F)
    /// CUPS-Get-Document (0x4027)
    public static let cupsGetDocument = IPPOperation(rawValue: 0x4027)
    /// CUPS-Create-Local-Printer (0x4028)
    public static let cupsCreateLocalPrinter = IPPOperation(rawValue: 0x4028)

    /// The registered name, e.g. `Print-Job`; nil for unregistered codes.
    public var name: String? {
        switch rawValue {
        case 0x0002: "Print-Job"
        case 0x0003: "Print-URI"
        case 0x0004: "Validate-Job"
        case 0x0005: "Create-Job"
        case 0x0006: "Send-Document"
        case 0x0007: "Send-URI"
        case 0x0008: "Cancel-Job"
        case 0x0009: "Get-Job-Attributes"
        case 0x000A: "Get-Jobs"
        case 0x000B: "Get-Printer-Attributes"
        case 0x000C: "Hold-Job"
        case 0x000D: "Release-Job"
        case 0x000E: "Restart-Job"
        case 0x0010: "Pause-Printer"
        case 0x0011: "Resume-Printer"
        case 0x0012: "Purge-Jobs"
        case 0x0013: "Set-Printer-Attributes"
        case 0x0014: "Set-Job-Attributes"
        case 0x0015: "Get-Printer-Supported-Values"
        case 0x0016: "Create-Printer-Subscriptions"
        case 0x0017: "Create-Job-Subscriptions"
        case 0x0018: "Get-Subscription-Attributes"
        case 0x0019: "Get-Subscriptions"
        case 0x001A: "Renew-Subscription"
        case 0x001B: "Cancel-Subscription"
        case 0x001C: "Get-Notifications"
        case 0x0022: "Enable-Printer"
        case 0x0023: "Disable-Printer"
        case 0x0024: "Pause-Printer-After-Current-Job"
        case 0x0025: "Hold-New-Jobs"
        case 0x0026: "Release-Held-New-Jobs"
        case 0x0027: "Deactivate-Printer"
        case 0x0028: "Activate-Printer"
        case 0x0029: "Restart-Printer"
        case 0x002A: "Shutdown-Printer"
        case 0x002B: "Startup-Printer"
        case 0x002C: "Reprocess-Job"
        case 0x002D: "Cancel-Current-Job"
        case 0x002E: "Suspend-Current-Job"
        case 0x002F: "Resume-Job"
        case 0x0030: "Promote-Job"
        case 0x0031: "Schedule-Job-After"
        case 0x0033: "Cancel-Document"
        case 0x0034: "Get-Document-Attributes"
        case 0x0035: "Get-Documents"
        case 0x0036: "Delete-Document"
        case 0x0037: "Set-Document-Attributes"
        case 0x0038: "Cancel-Jobs"
        case 0x0039: "Cancel-My-Jobs"
        case 0x003A: "Resubmit-Job"
        case 0x003B: "Close-Job"
        case 0x003C: "Identify-Printer"
        case 0x003D: "Validate-Document"
        case 0x003E: "Add-Document-Images"
        case 0x003F: "Acknowledge-Document"
        case 0x0040: "Acknowledge-Identify-Printer"
        case 0x0041: "Acknowledge-Job"
        case 0x0042: "Fetch-Document"
        case 0x0043: "Fetch-Job"
        case 0x0044: "Get-Output-Device-Attributes"
        case 0x0045: "Update-Active-Jobs"
        case 0x0046: "Deregister-Output-Device"
        case 0x0047: "Update-Document-Status"
        case 0x0048: "Update-Job-Status"
        case 0x0049: "Update-Output-Device-Attributes"
        case 0x004A: "Get-Next-Document-Data"
        case 0x004B: "Allocate-Printer-Resources"
        case 0x004C: "Create-Printer"
        case 0x004D: "Deallocate-Printer-Resources"
        case 0x004E: "Delete-Printer"
        case 0x004F: "Get-Printers"
        case 0x0050: "Shutdown-One-Printer"
        case 0x0051: "Startup-One-Printer"
        case 0x0052: "Cancel-Resource"
        case 0x0053: "Create-Resource"
        case 0x0054: "Install-Resource"
        case 0x0055: "Send-Resource-Data"
        case 0x0056: "Set-Resource-Attributes"
        case 0x0057: "Create-Resource-Subscriptions"
        case 0x0058: "Create-System-Subscriptions"
        case 0x0059: "Disable-All-Printers"
        case 0x005A: "Enable-All-Printers"
        case 0x005B: "Get-System-Attributes"
        case 0x005C: "Get-System-Supported-Values"
        case 0x005D: "Pause-All-Printers"
        case 0x005E: "Pause-All-Printers-After-Current-Job"
        case 0x005F: "Register-Output-Device"
        case 0x0060: "Restart-System"
        case 0x0061: "Resume-All-Printers"
        case 0x0062: "Set-System-Attributes"
        case 0x0063: "Shutdown-All-Printers"
        case 0x0064: "Startup-All-Printers"
        case 0x0065: "Get-Printer-Resources"
        case 0x0066: "Get-User-Printer-Attributes"
        case 0x0067: "Restart-One-Printer"
        case 0x4001: "CUPS-Get-Default"
        case 0x4002: "CUPS-Get-Printers"
        case 0x4003: "CUPS-Add-Modify-Printer"
        case 0x4004: "CUPS-Delete-Printer"
        case 0x4005: "CUPS-Get-Classes"
        case 0x4006: "CUPS-Add-Modify-Class"
        case 0x4007: "CUPS-Delete-Class"
        case 0x4008: "CUPS-Accept-Jobs"
        case 0x4009: "CUPS-Reject-Jobs"
        case 0x400A: "CUPS-Set-Default"
        case 0x400B: "CUPS-Get-Devices"
        case 0x400C: "CUPS-Get-PPDs"
        case 0x400D: "CUPS-Move-Job"
        case 0x400E: "CUPS-Authenticate-Job"
        case 0x400F: "CUPS-Get-PPD"
        case 0x4027: "CUPS-Get-Document"
        case 0x4028: "CUPS-Create-Local-Printer"
        default: nil
        }
    }

    /// Every registered operation, in code order.
    public static let allRegistered: [IPPOperation] = [
        .printJob,
        .printURI,
        .validateJob,
        .createJob,
        .sendDocument,
        .sendURI,
        .cancelJob,
        .getJobAttributes,
        .getJobs,
        .getPrinterAttributes,
        .holdJob,
        .releaseJob,
        .restartJob,
        .pausePrinter,
        .resumePrinter,
        .purgeJobs,
        .setPrinterAttributes,
        .setJobAttributes,
        .getPrinterSupportedValues,
        .createPrinterSubscriptions,
        .createJobSubscriptions,
        .getSubscriptionAttributes,
        .getSubscriptions,
        .renewSubscription,
        .cancelSubscription,
        .getNotifications,
        .enablePrinter,
        .disablePrinter,
        .pausePrinterAfterCurrentJob,
        .holdNewJobs,
        .releaseHeldNewJobs,
        .deactivatePrinter,
        .activatePrinter,
        .restartPrinter,
        .shutdownPrinter,
        .startupPrinter,
        .reprocessJob,
        .cancelCurrentJob,
        .suspendCurrentJob,
        .resumeJob,
        .promoteJob,
        .scheduleJobAfter,
        .cancelDocument,
        .getDocumentAttributes,
        .getDocuments,
        .deleteDocument,
        .setDocumentAttributes,
        .cancelJobs,
        .cancelMyJobs,
        .resubmitJob,
        .closeJob,
        .identifyPrinter,
        .validateDocument,
        .addDocumentImages,
        .acknowledgeDocument,
        .acknowledgeIdentifyPrinter,
        .acknowledgeJob,
        .fetchDocument,
        .fetchJob,
        .getOutputDeviceAttributes,
        .updateActiveJobs,
        .deregisterOutputDevice,
        .updateDocumentStatus,
        .updateJobStatus,
        .updateOutputDeviceAttributes,
        .getNextDocumentData,
        .allocatePrinterResources,
        .createPrinter,
        .deallocatePrinterResources,
        .deletePrinter,
        .getPrinters,
        .shutdownOnePrinter,
        .startupOnePrinter,
        .cancelResource,
        .createResource,
        .installResource,
        .sendResourceData,
        .setResourceAttributes,
        .createResourceSubscriptions,
        .createSystemSubscriptions,
        .disableAllPrinters,
        .enableAllPrinters,
        .getSystemAttributes,
        .getSystemSupportedValues,
        .pauseAllPrinters,
        .pauseAllPrintersAfterCurrentJob,
        .registerOutputDevice,
        .restartSystem,
        .resumeAllPrinters,
        .setSystemAttributes,
        .shutdownAllPrinters,
        .startupAllPrinters,
        .getPrinterResources,
        .getUserPrinterAttributes,
        .restartOnePrinter,
        .cupsGetDefault,
        .cupsGetPrinters,
        .cupsAddModifyPrinter,
        .cupsDeletePrinter,
        .cupsGetClasses,
        .cupsAddModifyClass,
        .cupsDeleteClass,
        .cupsAcceptJobs,
        .cupsRejectJobs,
        .cupsSetDefault,
        .cupsGetDevices,
        .cupsGetPPDs,
        .cupsMoveJob,
        .cupsAuthenticateJob,
        .cupsGetPPD,
        .cupsGetDocument,
        .cupsCreateLocalPrinter,
    ]

    /// Looks a registered value up by name (case-insensitive, as ipptool accepts them).
    public init?(name: String) {
        let wanted = name.lowercased()
        guard let found = IPPOperation.allRegistered.first(where: { $0.name?.lowercased() == wanted }) else { return nil }
        self = found
    }

    /// The operation's registered name, e.g. `Print-Job`; for an unregistered one the code in hex, e.g.
    /// `operation-0x4F00`.
    public var description: String { name ?? "operation-\(ippHex(rawValue, digits: 4))" }
}
