/// The status screen (`StatusViewController`): every printer's queue, and deleting the user's pending jobs — one SSH
/// connection per press, one exec per printer.
public enum PrinterQueues {
    /// The status screen's text while it connects, before a report arrives.
    public static let connecting = "Connecting to server..."
    /// The last line of ``PrinterQueues/deleteAll(_:printers:)``'s report, after one line per printer.
    public static let allDeleted = "Deletion command sent to all printers"

    /// What the status screen shows, or the alert when the connection fails.
    public struct Report: Sendable {
        /// The screen's text: each printer's queue, or one line per printer that a deletion was sent; empty when the
        /// login failed.
        public let text: String
        /// The alert shown instead when the login failed or Settings lacks credentials; nil otherwise.
        public let alert: Alert?
    }

    /// "Refresh Status": `lpq -P p` for every printer; an empty queue (exactly `no entries\n`) reads
    /// `p : Print Queue Empty`, anything else is shown raw after `p : ` — printer errors such as "Out of Paper" too.
    public static func status(_ connectivity: SSHConnectivity, printers: [String]) async -> Report {
        if let alert = await login(connectivity) { return Report(text: "", alert: alert) }
        var text = ""
        for printer in printers {
            let output = await connectivity.runCommand("lpq -P \(printer)")
            text += output == "no entries\n" ? "\(printer) : Print Queue Empty\n" : "\(printer) : \(output)\n"
        }
        await connectivity.disconnect()
        return Report(text: text, alert: nil)
    }

    /// "Delete pending jobs": `lprm -P p -` for every printer, output ignored — jobs sent through NUSNET/Samba stay,
    /// as lprm cannot remove them.
    public static func deleteAll(_ connectivity: SSHConnectivity, printers: [String]) async -> Report {
        if let alert = await login(connectivity) { return Report(text: "", alert: alert) }
        var text = ""
        for printer in printers {
            _ = await connectivity.runCommand("lprm -P \(printer) -")
            text += "Deletion command sent to \(printer)\n"
        }
        await connectivity.disconnect()
        return Report(text: text + allDeleted, alert: nil)
    }

    private static func login(_ connectivity: SSHConnectivity) async -> Alert? {
        let login = await connectivity.connect()
        if !login.serverFound { return .serverUnreachable }
        if !login.authorised { return .credentialsWrong }
        return nil
    }
}
