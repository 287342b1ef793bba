import Wire

/// Typed values written as the scenario language's words, so a typed call runs as the line it stands for.
enum ScenarioText {
    /// The directives whose lines change the world: what a failing seed's report lists as its faults.
    static let changesTheWorld: Set<String> = ["link", "partition", "heal", "hold", "release", "reset", "fault", "clock", "later", "address"]

    /// The file's name of a `#fileID` (`Module/File.swift`): what messages name a test's lines and checks by.
    static func fileName(_ fileID: String) -> String { fileID.split(separator: "/").last.map(String.init) ?? fileID }

    /// `text` as one word: as it is when it is one, else quoted with the language's escapes.
    static func word(_ text: String) -> String {
        let plain = !text.isEmpty && text.unicodeScalars.allSatisfy { $0.value > 32 && $0.value < 127 && !"\"\\$#".unicodeScalars.contains($0) }
        guard !plain else { return text }
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "$": quoted += "\\$"
            case "\n": quoted += "\\n"
            case "\t": quoted += "\\t"
            case "\r": quoted += "\\r"
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    /// A duration as the language reads it back exactly: the workbench's compact text where that is exact and
    /// parses (whole seconds, or under a minute), else nanoseconds.
    static func duration(_ duration: Duration) -> String {
        let nanoseconds = duration.nanosecondsValue
        if nanoseconds % 1_000_000_000 == 0 || abs(nanoseconds) < 60_000_000_000 { return duration.workbenchText }
        return "\(nanoseconds)ns"
    }
}
