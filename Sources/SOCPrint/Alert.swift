/// An alert the app shows: a title, a message, and its buttons (the first is the affirmative one).
public struct Alert: Error, Sendable, Equatable, CustomStringConvertible {
    public let title: String
    public let message: String
    public let buttons: [String]

    public init(_ title: String, _ message: String, buttons: [String] = ["OK"]) {
        self.title = title
        self.message = message
        self.buttons = buttons
    }

    public var description: String { message.isEmpty ? title : "\(title): \(message)" }

    // The app's texts, word for word.
    static let cannotContinue = "Cannot continue"
    public static let serverUnreachable = Alert(cannotContinue, "Server unreachable. Check your internet connection")
    public static let credentialsWrong = Alert(cannotContinue, "Username/Password incorrect")
    public static let credentialsMissing = Alert(cannotContinue, "Username/Password not set")

    /// Asked before the 46.6 MB converter goes over mobile data.
    public static let mobileData = Alert(
        "Upload DOC converter?",
        "Using the document converter requires a 47MB upload. You seem to be on mobile data…\n\nDo you want to continue?",
        buttons: ["Yes", "No"])
    /// Asked when Cancel is pressed while printing.
    public static let confirmCancel = Alert("Cancel", "Are you sure you want to cancel this print operation?", buttons: ["Yes", "No"])

    // The print screen's checks.
    public static let notSetUp = Alert(
        "Application not set up",
        "Please configure your Unix username, password and/or server in Settings before printing")
    public static let printerNotSelected = Alert("Printer not selected", "Choose a printer, or enter one in Settings")
    public static let noFile = Alert("No file", "Open a document in this app from another app (\"Open In\") first")
    public static let invalidPageRange = Alert("Invalid page range", "Enter page numbers from 1, the first not after the last")

    // Settings.
    public static let saved = Alert("Saved!", "All fields saved!")
    public static let emptyFields = Alert(
        "Empty Fields",
        "Username/Password/Server fields are empty. This app will not work without your Unix credentials or a server setting.")
}
