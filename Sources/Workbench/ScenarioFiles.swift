import ArgumentParser
import Foundation
import Scenario
import SystemKit

/// Reading scenario files for `run`, `swarm` and `shrink` (a folder stands for the `.scn` files in it): every problem of
/// every file is listed (file, line, column, message) before anything runs, and any problem stops the command with
/// ``ExitStatus/scenarioWrong``.
enum ScenarioFiles {
    /// Parses `files` with the catalog's language, and refuses fault points no actor of the scenario checks (the
    /// fault could never fire), and, for `live` (`run --live`), every line that cannot run on the live wire, and every
    /// line that needs the inside of an actor a target stands in for.
    static func load(_ files: [String], live: LiveMode? = nil, targets: [Target] = []) throws -> [Script] {
        let language = Catalog.language
        var scripts: [Script] = []
        var problems: [String] = []
        var expanded: [String] = []
        for file in files {
            // A folder stands for the scenarios in it, in name order (not those of folders inside it).
            var isFolder: ObjCBool = false
            guard FileManager.default.fileExists(atPath: file, isDirectory: &isFolder), isFolder.boolValue else {
                expanded.append(file)
                continue
            }
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: file)) ?? []).filter { $0.hasSuffix(".scn") }.sorted()
            guard !names.isEmpty else {
                problems.append("\(file): error: a folder with no .scn file in it; expected scenario files or a folder of them")
                continue
            }
            let folder = file.hasSuffix("/") ? String(file.dropLast()) : file
            expanded += names.map { "\(folder)/\($0)" }
        }
        for file in expanded {
            let text: String
            do { text = try String(contentsOfFile: file, encoding: .utf8) } catch {
                let absolute = URL(fileURLWithPath: file).standardizedFileURL.path
                problems.append("\(file): error: cannot read \(absolute): \((error as NSError).localizedDescription)")
                continue
            }
            var (script, errors) = language.parse(file: file, text: text)
            if errors.isEmpty { errors = language.unreachableFaultPoints(script) }
            if errors.isEmpty, let live { errors = script.statements.compactMap { language.liveProblem($0, in: live) } }
            if errors.isEmpty { errors = script.statements.compactMap { Target.problem($0, targets: targets) } }
            problems += errors.map { "\($0.file):\($0.line):\($0.column): error: \($0.message)" }
            scripts.append(script)
        }
        guard problems.isEmpty else {
            for line in problems { printError(line) }
            print("ERROR \(problems.count) problem\(problems.count == 1 ? "" : "s") in the scenario files; nothing was run")
            throw ExitStatus.scenarioWrong
        }
        return scripts
    }
}
