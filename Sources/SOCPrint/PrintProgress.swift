/// The ten rows of the "Printing Progress" dialog, in order.
public enum PrintStep: Int, Sendable, CaseIterable {
    /// "Connecting to server": the SSH connection and the password login.
    case connecting
    /// "Some housekeeping": `mkdir socPrint/`, then every file in it but the three converters is deleted.
    case housekeeping
    /// "Uploading DOC converter": the document converter, uploaded unless the host's copy matches its digest; skipped
    /// for PDFs.
    case uploadDocumentConverter
    /// "Uploading PDF Formatter": nup_pdf, or Multivalent for 6 pages per sheet, uploaded unless cached; skipped at one
    /// page per sheet.
    case uploadFormatter
    /// "Uploading <file name>": the document, to `socPrint/source.<ext>`.
    case uploadDocument
    /// "Converting to PDF" with the document converter; skipped for PDFs.
    case convertToPDF
    /// "Trim PDF to page S to E" with Ghostscript; skipped when all pages are printed.
    case trim
    /// "Formatting to N pages/sheet" with nup_pdf or Multivalent; skipped at one page per sheet.
    case format
    /// "Converting to Postscript" with `pdftops`.
    case convertToPostScript
    /// "Sending to <printer>": `lpr -P` with the PostScript file.
    case send
}

/// One row of the dialog as a UI binds to it.
public struct PrintRow: Sendable, Equatable {
    /// What the row shows: nothing yet, a spinner, a tick, a cross, or nothing at all because it does not apply.
    public enum State: Sendable, Equatable {
        /// Not reached yet.
        case pending
        /// The current row (a spinner), with its footer: upload progress, or "This could take a while...".
        case running(footer: String?)
        /// Ticked, keeping its last footer.
        case done(footer: String?)
        /// The red cross.
        case failed
        /// Does not apply to this print (hidden in the dialog).
        case skipped
    }

    /// Which of the dialog's rows this is; its `rawValue` is the row's index in the dialog.
    public let step: PrintStep
    /// The app's title, e.g. "Uploading DOC converter", "Formatting to 8 pages/sheet", "Sending to psts".
    public let title: String
    /// What the row shows now; it changes as the print goes on.
    public var state: State
    /// Upload rows: bytes sent so far and the file's size (for a progress bar); nil for other rows.
    public var sent: Int64?
    /// The size in bytes of what the row uploads (a converter or the document); nil for rows that upload nothing.
    public var total: Int64?

    /// A row with nothing sent yet: ``PrintRow/sent`` starts at 0 when `total` is given, and is nil otherwise.
    public init(step: PrintStep, title: String, state: State, total: Int64? = nil) {
        self.step = step
        self.title = title
        self.state = state
        self.total = total
        sent = total.map { _ in 0 }
    }
}

/// The dialog's text: the app's strings, and sizes as iOS shows them.
public enum PrintingText {
    /// The dialog's title, the first line of ``PrintingText/dialog(_:finished:)``.
    public static let dialogTitle = "Printing Progress"
    /// The footer of the rows that run a slow command on the host: conversion to PDF, trimming, PostScript.
    public static let slowStep = "This could take a while..."
    /// The dialog's button while the print runs.
    public static let cancel = "Cancel"
    /// The dialog's button once the print is over.
    public static let close = "Close"

    /// An upload row's footer, the app's `"%@ of %@ (%.1f%%)"`: "46.6 MB of 46.6 MB (100.0%)".
    public static func uploadFooter(sent: Int64, of total: Int64) -> String {
        let fraction = total > 0 ? Double(sent) / Double(total) : 0
        return "\(fileSize(sent)) of \(fileSize(total)) (\(fixed(fraction * 100, digits: 1))%)"
    }

    /// A byte count as iOS's `NSByteCountFormatter` (file style, decimal units, zero-padded fraction digits) shows
    /// it: "Zero KB", "1 byte", "999 bytes", "297 KB" (no decimals), "1.2 MB" (one), "2.35 GB" (two).
    public static func fileSize(_ bytes: Int64) -> String {
        let value = Double(bytes)
        switch bytes {
        case ..<1: return "Zero KB"
        case 1: return "1 byte"
        case ..<1_000: return "\(bytes) bytes"
        case ..<999_500: return "\(Int((value / 1_000).rounded())) KB"
        case ..<999_950_000: return "\(fixed(value / 1_000_000, digits: 1)) MB"
        default: return "\(fixed(value / 1_000_000_000, digits: 2)) GB"
        }
    }

    /// `%.Nf` without Foundation: rounds half away from zero, as printf does for these magnitudes.
    static func fixed(_ value: Double, digits: Int) -> String {
        var scale = 1.0
        for _ in 0..<digits { scale *= 10 }
        let scaled = Int64((value * scale).rounded(.toNearestOrAwayFromZero))
        let whole = scaled / Int64(scale)
        let fraction = scaled % Int64(scale)
        guard digits > 0 else { return String(whole) }
        let fractionText = String(fraction)
        return "\(whole)." + String(repeating: "0", count: digits - fractionText.count) + fractionText
    }

    /// The dialog as text for a console: the applicable rows with a tick, a spinner (`…`), a cross or nothing, their
    /// footers indented below, and the button ("Cancel" while running, "Close" at the end).
    public static func dialog(_ rows: [PrintRow], finished: Bool) -> String {
        var lines = [dialogTitle]
        for row in rows {
            let mark: String
            var footer: String?
            switch row.state {
            case .skipped: continue
            case .pending: mark = " "
            case .running(let text):
                mark = "…"
                footer = text
            case .done(let text):
                mark = "✓"
                footer = text
            case .failed: mark = "✗"
            }
            lines.append("\(mark) \(row.title)")
            if let footer { lines.append("    \(footer)") }
        }
        lines.append("[\(finished ? close : cancel)]")
        return lines.joined(separator: "\n")
    }
}
