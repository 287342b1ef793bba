import Foundation

/// One line of an SCPms client log upload: `#Date time#Severity#CorrelationId#Source#Location#Message#`.
///
/// A `#` inside a field is written `\#` and a backslash `\\`, so any message survives the round trip.
public struct ClientLogLine: Sendable, Equatable {
    public enum Severity: String, Sendable, CaseIterable {
        case debug = "DEBUG"
        case info = "INFO"
        case warn = "WARN"
        case error = "ERROR"
        case fatal = "FATAL"
    }

    /// `2026-01-01 00:00:00.000` (UTC; milliseconds optional when parsing).
    public let timestamp: String
    public let severity: Severity
    public let correlationId: String
    public let source: String
    public let location: String
    public let message: String

    public init(
        timestamp: String, severity: Severity, correlationId: String = "", source: String = "",
        location: String = "", message: String
    ) {
        self.timestamp = timestamp
        self.severity = severity
        self.correlationId = correlationId
        self.source = source
        self.location = location
        self.message = message
    }

    /// `2026-01-01 00:00:00.000` for a Unix time in milliseconds.
    public static func timestamp(milliseconds: Int64) -> String {
        let iso = ODataDate.iso8601(milliseconds: milliseconds)
        return String(iso.dropLast().replacingOccurrences(of: "T", with: " "))
    }

    /// The line as uploaded (without the newline).
    public var text: String {
        "#" + [timestamp, severity.rawValue, correlationId, source, location, message].map(Self.escape).joined(separator: "#") + "#"
    }

    /// Parses one line, or says what is wrong with it.
    public static func parse(_ line: Substring) -> Result<ClientLogLine, ClientLogError> {
        guard line.hasPrefix("#"), line.hasSuffix("#"), line.count >= 2 else {
            return .failure(
                ClientLogError("a log line must start and end with '#'; expected #Date time#Severity#CorrelationId#Source#Location#Message#"))
        }
        var fields: [String] = []
        var current = ""
        var escaped = false
        for character in line.dropFirst() {
            if escaped {
                guard character == "#" || character == "\\" else {
                    return .failure(ClientLogError("unknown escape '\\\(character)'; only \\# and \\\\ are allowed"))
                }
                current.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == "#" {
                fields.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        guard !escaped, current.isEmpty else {
            return .failure(ClientLogError("the line ends inside a field; the last '#' is escaped"))
        }
        guard fields.count == 6 else {
            return .failure(
                ClientLogError("the line has \(fields.count) fields; expected 6: Date time, Severity, CorrelationId, Source, Location, Message"))
        }
        guard isTimestamp(fields[0]) else {
            return .failure(ClientLogError("bad date '\(fields[0])'; expected 'YYYY-MM-DD hh:mm:ss' with optional '.mmm'"))
        }
        guard let severity = Severity(rawValue: fields[1]) else {
            return .failure(ClientLogError("unknown severity '\(fields[1])'; expected one of DEBUG, INFO, WARN, ERROR, FATAL"))
        }
        return .success(
            ClientLogLine(
                timestamp: fields[0], severity: severity, correlationId: fields[2], source: fields[3],
                location: fields[4], message: fields[5]))
    }

    /// Parses an upload body: one line each, blank lines ignored. Fails on the first bad line, naming it.
    public static func parseUpload(_ body: String, maxLines: Int) -> Result<[ClientLogLine], ClientLogError> {
        var lines: [ClientLogLine] = []
        // "\r\n" is one Character in Swift, so both line ends are named.
        for (number, line) in body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            if line.allSatisfy({ $0 == " " || $0 == "\t" }) { continue }
            guard lines.count < maxLines else { return .failure(ClientLogError("more than \(maxLines) log lines in one upload")) }
            switch parse(line) {
            case .success(let parsed): lines.append(parsed)
            case .failure(let error): return .failure(ClientLogError("line \(number + 1): \(error.description)"))
            }
        }
        guard !lines.isEmpty else { return .failure(ClientLogError("no log lines in the upload")) }
        return .success(lines)
    }

    private static func escape(_ field: String) -> String {
        field.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "#", with: "\\#")
    }

    private static func isTimestamp(_ text: String) -> Bool {
        let pattern = Array("dddd-dd-dd dd:dd:dd")
        let characters = Array(text)
        guard
            characters.count == pattern.count
                || (characters.count == pattern.count + 4 && characters[pattern.count] == "."
                    && characters[(pattern.count + 1)...].allSatisfy(\.isASCIIDigit))
        else { return false }
        return zip(pattern, characters).allSatisfy { expected, found in expected == "d" ? found.isASCIIDigit : expected == found }
    }
}

/// Why a log upload was refused (the text goes back in a 400).
public struct ClientLogError: Error, Equatable, CustomStringConvertible, Sendable {
    public let description: String
    public init(_ description: String) { self.description = description }
}
