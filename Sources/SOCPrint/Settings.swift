import Synchronization

/// The app's settings (`NSUserDefaults` on iOS): the Unix username and password (kept in plain text, as the app
/// did), an extra printer, and the server.
public final class SettingsStore: Sendable {
    /// The app's keys.
    public static let usernameKey = "KEY_USERNAME", passwordKey = "KEY_PASSWORD", printerKey = "KEY_PRINTER", serverKey = "KEY_SERVER"
    /// The server used until one is saved: Sunfire, the SoC Unix host the app prints through (port 22).
    public static let defaultServer = "sunfire.comp.nus.edu.sg"

    private let values = Mutex<[String: String]>([:])

    /// An empty store, as on a first launch: no credentials or printer, and the default server.
    public init() {}

    /// The Unix username last saved; nil until the first save.
    public var username: String? { values.withLock { $0[Self.usernameKey] } }
    /// The Unix password last saved, in plain text as the app kept it; nil until the first save.
    public var password: String? { values.withLock { $0[Self.passwordKey] } }
    /// The extra printer ("" or nil for none), prepended to the built-in list.
    public var printer: String? { values.withLock { $0[Self.printerKey] } }
    /// `host[:port]`, the default until one is saved.
    public var server: String { values.withLock { $0[Self.serverKey] } ?? Self.defaultServer }

    /// The Settings screen's Save: all four stored and "Saved!", or nothing stored and "Empty Fields" when the
    /// username, password or server is empty (the printer may be).
    @discardableResult
    public func save(username: String, password: String, printer: String, server: String) -> Alert {
        guard !username.isEmpty, !password.isEmpty, !server.isEmpty else { return .emptyFields }
        values.withLock {
            $0[Self.usernameKey] = username
            $0[Self.passwordKey] = password
            $0[Self.printerKey] = printer
            $0[Self.serverKey] = server
        }
        return .saved
    }

    /// Both credentials, when set.
    public var credentials: (user: String, password: String)? {
        guard let username, !username.isEmpty, let password, !password.isEmpty else { return nil }
        return (username, password)
    }

    /// The server as host and port (22 unless given), or nil when it is not `host[:port]` with a port 1…65535.
    public var serverAddress: (host: String, port: Int)? { Self.parseServer(server) }

    /// `host[:port]` (port 22 unless given), or nil.
    public static func parseServer(_ text: String) -> (host: String, port: Int)? {
        let parts = text.split(separator: ":", omittingEmptySubsequences: false)
        guard let host = parts.first, !host.isEmpty, parts.count <= 2 else { return nil }
        guard parts.count == 2 else { return (String(host), 22) }
        guard parts[1].count <= 5, parts[1].allSatisfy(\.isASCII), let port = Int(parts[1]), (1...65_535).contains(port) else { return nil }
        return (String(host), port)
    }
}

/// The built-in printers (`-sx`: single-sided), and the list the print screen offers.
public enum Printers {
    /// The twelve queues the app offers: six printers, each with its single-sided `-sx` queue.
    public static let builtIn = [
        "psts", "psts-sx", "pstsb", "pstsb-sx", "pstsc", "pstsc-sx", "psc008", "psc008-sx",
        "psc011", "psc011-sx", "psc245", "psc245-sx",
    ]

    /// The custom printer from Settings first, then the built-in ones.
    public static func list(custom: String?) -> [String] {
        guard let custom, !custom.isEmpty else { return builtIn }
        return [custom] + builtIn
    }

    /// Whether a name can go on `lpr -P` as one shell word: letters, digits, `-`, `_`, `.` (the app did not check;
    /// the name from Settings goes on the command line unquoted).
    public static func isPlainName(_ name: String) -> Bool {
        !name.isEmpty && name.count <= 64
            && name.unicodeScalars.allSatisfy {
                ("a"..."z").contains($0) || ("A"..."Z").contains($0) || ("0"..."9").contains($0) || "-_.".unicodeScalars.contains($0)
            }
    }
}

/// The print screen: its choices and the checks the Print button makes before the progress dialog opens.
public struct PrintScreen: Sendable {
    /// The chosen printer; nil or empty fails the Print button's check with ``Alert/printerNotSelected``.
    public var printer: String?
    /// The "Pages per sheet" choice; one by default.
    public var pagesPerSheet: PagesPerSheet = .one
    /// "All", or "Custom" with the two text fields as typed.
    public var customRange: (from: String, to: String)?

    /// The screen with these choices; by default no printer, one page per sheet and all pages.
    public init(printer: String? = nil, pagesPerSheet: PagesPerSheet = .one, customRange: (from: String, to: String)? = nil) {
        self.printer = printer
        self.pagesPerSheet = pagesPerSheet
        self.customRange = customRange
    }

    /// The Print button: the request, or the alert the app shows instead ("Application not set up", "Printer not
    /// selected", "No file", "Invalid page range"), checked in that order.
    public func check(settings: SettingsStore, document: OpenedDocument?) -> Result<PrintRequest, Alert> {
        guard settings.credentials != nil, settings.serverAddress != nil else { return .failure(.notSetUp) }
        guard let printer, !printer.isEmpty else { return .failure(.printerNotSelected) }
        guard Printers.isPlainName(printer) else {
            return .failure(Alert("Printer not selected", "'\(printer)' is not a printer name (letters, digits, '-', '_', '.')"))
        }
        guard let document else { return .failure(.noFile) }
        var range = PageRange.all
        if let customRange {
            guard let custom = PageRange.custom(from: customRange.from, to: customRange.to) else { return .failure(.invalidPageRange) }
            range = custom
        }
        return .success(
            PrintRequest(fileName: document.name, document: document.source, printer: printer, pagesPerSheet: pagesPerSheet, range: range))
    }
}

/// A document handed to the app ("Open In"): its file name and bytes.
public struct OpenedDocument: Sendable {
    /// The file name as handed over, e.g. `Term project overview.pptx`; its extension decides whether it is
    /// converted to PDF.
    public let name: String
    /// The file's bytes, taken out of the app's inbox.
    public let source: UploadSource

    /// A document with this name and content, as a file arriving through "Open In" becomes.
    public init(name: String, source: UploadSource) {
        self.name = name
        self.source = source
    }
}
