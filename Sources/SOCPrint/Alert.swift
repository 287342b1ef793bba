/// An alert the app shows: a title, a message, and its buttons (the first is the affirmative one).
public struct Alert: Error, Sendable, Equatable, CustomStringConvertible {
    /// The heading, e.g. "Cannot continue" or "Printer not selected".
    public let title: String
    /// The text under the title, as the app words it (or the host's output for a failed command); empty when the
    /// title says it all, as for a failed upload.
    public let message: String
    /// The buttons' labels in order; the first is the affirmative one ("OK", or "Yes" for a question).
    public let buttons: [String]

    /// An alert with a single "OK" button unless `buttons` gives others.
    public init(_ title: String, _ message: String, buttons: [String] = ["OK"]) {
        self.title = title
        self.message = message
        self.buttons = buttons
    }

    /// The title, then `: ` and the message unless the message is empty.
    public var description: String { message.isEmpty ? title : "\(title): \(message)" }

    // The app's texts, word for word.
    static let cannotContinue = "Cannot continue"
    /// Shown when the print host or the quota site cannot be reached, or the SSH login ends for a reason other
    /// than a refused password.
    public static let serverUnreachable = Alert(cannotContinue, "Server unreachable. Check your internet connection")
    /// Shown when the print host refuses the username or password, or the quota page comes back without quota
    /// rows.
    public static let credentialsWrong = Alert(cannotContinue, "Username/Password incorrect")
    /// Shown by the quota, status and delete screens when Settings has no username or password (status and
    /// delete also when the server setting is unusable).
    public static let credentialsMissing = Alert(cannotContinue, "Username/Password not set")

    /// Asked before the 46.6 MB converter goes over mobile data.
    public static let mobileData = Alert(
        "Upload DOC converter?",
        "Using the document converter requires a 47MB upload. You seem to be on mobile data…\n\nDo you want to continue?",
        buttons: ["Yes", "No"])
    /// Asked when Cancel is pressed while printing.
    public static let confirmCancel = Alert("Cancel", "Are you sure you want to cancel this print operation?", buttons: ["Yes", "No"])

    // The print screen's checks.
    /// The Print button's first check: the username, password or server in Settings is missing, or the server is
    /// not `host[:port]`.
    public static let notSetUp = Alert(
        "Application not set up",
        "Please configure your Unix username, password and/or server in Settings before printing")
    /// The Print button's check when no printer is chosen (a printer name that is not one shell word gets the
    /// same title with its own message).
    public static let printerNotSelected = Alert("Printer not selected", "Choose a printer, or enter one in Settings")
    /// The Print button's check when no document has been handed to the app through "Open In".
    public static let noFile = Alert("No file", "Open a document in this app from another app (\"Open In\") first")
    /// The Print button's check when the custom range is not two page numbers from 1, the first not after the
    /// last.
    public static let invalidPageRange = Alert("Invalid page range", "Enter page numbers from 1, the first not after the last")

    // Settings.
    /// Settings' Save when the username, password and server were all given and stored.
    public static let saved = Alert("Saved!", "All fields saved!")
    /// Settings' Save when the username, password or server is empty; nothing is stored then.
    public static let emptyFields = Alert(
        "Empty Fields",
        "Username/Password/Server fields are empty. This app will not work without your Unix credentials or a server setting.")
}
