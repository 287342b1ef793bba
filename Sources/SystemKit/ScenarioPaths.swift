import Foundation
import Scenario

/// The one rule for a file a scenario line names (a document to print, an IPP request to replay, a PKCS#12 file, a CA
/// certificate, a folder of fixtures): an absolute path as it is; a relative one from the scenario file's folder (in the console: the current folder), else from Fixtures/, where the
/// workbench's own documents, keys and captures are.
package enum ScenarioPaths {
    /// The path of the existing file (or, with `directory`, folder) `path` names in the running scenario, or an error
    /// naming every place looked at.
    package static func existing(_ path: String, in context: ScenarioContext, directory: Bool = false) throws -> String {
        try existing(path, scenarioFile: context.file, directory: directory)
    }

    /// The same for the scenario file `scenarioFile` (`console` for the console).
    package static func existing(_ path: String, scenarioFile: String, directory: Bool = false) throws(StepError) -> String {
        var candidates: [String] = []
        if path.hasPrefix("/") {
            candidates = [path]
        } else {
            let base =
                scenarioFile == "console"
                ? FileManager.default.currentDirectoryPath
                : URL(fileURLWithPath: scenarioFile).deletingLastPathComponent().path
            candidates = [URL(fileURLWithPath: path, relativeTo: URL(fileURLWithPath: base, isDirectory: true)).standardizedFileURL.path]
            if let fixtures = try? Fixtures.path(path) { candidates.append(URL(fileURLWithPath: fixtures).standardizedFileURL.path) }
        }
        for candidate in candidates {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), isDirectory.boolValue == directory { return candidate }
        }
        throw StepError("no \(directory ? "folder" : "file") '\(path)': looked for \(candidates.joined(separator: " and "))")
    }
}

extension Arguments {
    /// A file (or folder) the line names, by the rule of ``ScenarioPaths``: checked when the line is read, unless it
    /// uses a `${variable}` (then when it runs).
    package mutating func path(_ what: String, directory: Bool = false) throws(ScenarioError) -> Template {
        let token = try take(what)
        if !token.text.contains("${") {
            do { _ = try ScenarioPaths.existing(token.text, scenarioFile: file, directory: directory) } catch {
                throw ScenarioError(file: file, line: line, column: token.column, message: error.message)
            }
        }
        return Template(token)
    }
}
