import ArgumentParser
import Foundation
import TestSupport
import Testing

@testable import Workbench

/// Every example of README.md and docs/*.md is run, by the kind its fence names (docs/README.md, "Examples"):
/// ```` ```scn ```` is a scenario that must pass, ```` ```console ```` a console transcript that must print what it
/// shows, ```` ```run ```` workbench commands that must print what the page shows, ```` ```sh ```` shell lines whose
/// `workbench` commands must parse. Any other fence is only shown. A failing example is reported at its page and line.
@Suite(.serialized) struct DocumentationExampleTests {
    @Test(arguments: DocumentationPages.blocks(of: "scn")) func aScenarioExampleRunsAndPasses(_ block: DocumentationBlock) throws {
        let name = block.page.replacingOccurrences(of: "/", with: "-") + "-\(block.line).scn"
        // A folder of its own, so no file of the repository's is found next to it: files it names come from Fixtures/.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("doc-examples-\(getpid())-\(name)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent(name)
        try (block.lines.joined(separator: "\n") + "\n").write(to: file, atomically: true, encoding: .utf8)
        let run = try WorkbenchBinary.run(["run", file.path, "--seed", "1"])
        guard run.status != 0 else { return }
        // The run names lines of the temporary file; name them on the page instead.
        var output = run.output
        for number in stride(from: block.lines.count, through: 1, by: -1) {
            output = output.replacingOccurrences(of: "\(file.path):\(number):", with: "\(block.page):\(block.line + number - 1):")
        }
        Issue.record(
            "\(block.page):\(block.line): this scenario example does not pass (exit \(run.status)):\n\(output)",
            sourceLocation: block.sourceLocation)
    }

    @Test(arguments: DocumentationPages.blocks(of: "console")) func aConsoleTranscriptPrintsWhatItShows(_ block: DocumentationBlock) {
        let transcript = ConsoleTranscript(block)
        for problem in transcript.problems { Issue.record("\(problem.where): \(problem.what)", sourceLocation: block.sourceLocation) }
        let printed = LinesBox()
        let session = ConsoleSession(seed: 1, write: { printed.append($0) })
        for entry in transcript.entries {
            let place = "\(block.page):\(entry.line)"
            if let shown = entry.promptTime, shown != session.kernel.now.workbenchText {
                Issue.record(
                    "\(place): the prompt shows \(shown), but the line before left the world at \(session.kernel.now.workbenchText)",
                    sourceLocation: block.sourceLocation)
            }
            printed.all.removeAll()
            _ = session.handle(entry.input)
            let actual = printed.all.joined(separator: "\n").split(separator: "\n", omittingEmptySubsequences: false).map {
                String($0).trimmingTrailingSpaces
            }.filter { !$0.isEmpty }
            if !ConsoleTranscript.matches(entry.expected, actual[...]) {
                let shown = entry.expected.map(\.shown).joined(separator: "\n")
                let message = "\(place): after '\(entry.input)' the page shows\n\(shown)\nbut the console printed\n\(actual.joined(separator: "\n"))"
                Issue.record(Comment(rawValue: message), sourceLocation: block.sourceLocation)
            }
        }
    }

    @Test(arguments: DocumentationPages.blocks(of: "run")) func aCommandTranscriptPrintsWhatItShows(_ block: DocumentationBlock) throws {
        // A scratch folder that sees the repository's Fixtures/ and Simulations/, so what a command writes stays there.
        let scratch = FileManager.default.temporaryDirectory.appendingPathComponent("doc-commands-\(getpid())-\(block.line)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: scratch) }
        for folder in ["Fixtures", "Simulations"] {
            try FileManager.default.createSymbolicLink(
                at: scratch.appendingPathComponent(folder), withDestinationURL: Repository.root.appendingPathComponent(folder))
        }
        let transcript = ConsoleTranscript(block, prompt: { $0.hasPrefix("$ ") ? (nil, String($0.dropFirst(2))) : nil })
        for problem in transcript.problems { Issue.record("\(problem.where): \(problem.what)", sourceLocation: block.sourceLocation) }
        for entry in transcript.entries {
            let place = "\(block.page):\(entry.line)"
            let commands = ShellExample.simpleCommands(entry.input)
            guard commands.count == 1, let arguments = ShellExample.workbenchArguments(commands[0]) else {
                Issue.record("\(place): a run block runs one workbench command a line, not '\(entry.input)'", sourceLocation: block.sourceLocation)
                continue
            }
            let run = try ExternalProcess.run(Repository.workbenchBinary.path, arguments, currentDirectory: scratch.path, timeout: 300)
            let actual = (run.stdout + "\n" + run.stderr).split(separator: "\n").map { String($0).trimmingTrailingSpaces }.filter { !$0.isEmpty }
            if !ConsoleTranscript.matches(entry.expected, actual[...]) {
                let shown = entry.expected.map(\.shown).joined(separator: "\n")
                let message = "\(place): '\(entry.input)' (exit \(run.status)) should print\n\(shown)\nbut printed\n\(actual.joined(separator: "\n"))"
                Issue.record(Comment(rawValue: message), sourceLocation: block.sourceLocation)
            }
        }
    }

    @Test(arguments: DocumentationPages.blocks(of: "sh")) func aShellExampleNamesCommandsThatExist(_ block: DocumentationBlock) {
        for command in ShellExample.commands(of: block) {
            let place = "\(block.page):\(command.line)"
            for words in command.simpleCommands {
                if let arguments = ShellExample.workbenchArguments(words) {
                    if let problem = ShellExample.problem(workbench: arguments) {
                        Issue.record("\(place): workbench \(arguments.joined(separator: " ")): \(problem)", sourceLocation: block.sourceLocation)
                    }
                } else if let program = words.first, program.hasPrefix("tools/") || program.hasPrefix(".ci/") {
                    let path = Repository.root.appendingPathComponent(program).path
                    if !FileManager.default.isExecutableFile(atPath: path) {
                        Issue.record("\(place): \(program) is not an executable file of the repository", sourceLocation: block.sourceLocation)
                    }
                }
            }
        }
    }

    @Test func everyRelativeLinkPointsToAFileAndHeadingThatExist() throws {
        for page in DocumentationPages.pages {
            let folder = URL(fileURLWithPath: page).deletingLastPathComponent().relativePath
            for link in DocumentationPages.relativeLinks(of: page) {
                let parts = link.target.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
                let path = parts[0].isEmpty ? page : URL(fileURLWithPath: folder).appendingPathComponent(parts[0]).standardized.relativePath
                let place = "\(page):\(link.line)"
                guard FileManager.default.fileExists(atPath: Repository.root.appendingPathComponent(path).path) else {
                    Issue.record("\(place): the link (\(link.target)) points to \(path), which does not exist")
                    continue
                }
                if parts.count == 2, path.hasSuffix(".md") {
                    let anchors = try DocumentationPages.anchors(of: path)
                    #expect(anchors.contains(parts[1]), "\(place): \(path) has no heading #\(parts[1]); its headings: \(anchors.sorted())")
                }
            }
        }
    }

    @Test func theIndexListsEveryPage() throws {
        let index = DocumentationPages.relativeLinks(of: "docs/README.md").map { $0.target.split(separator: "#").first.map(String.init) ?? "" }
        for page in DocumentationPages.pages where page.hasPrefix("docs/") && page != "docs/README.md" {
            #expect(index.contains(String(page.dropFirst("docs/".count))), "docs/README.md does not link \(page)")
        }
    }

    @Test func ciRunsTheReadmesTestCommand() throws {
        let ci = try String(contentsOf: Repository.root.appendingPathComponent(".ci/run"), encoding: .utf8)
        #expect(ci.split(separator: "\n").contains("exec tools/test.sh"), ".ci/run must run exactly the README's test command")
        let readme = DocumentationPages.blocks(of: "sh").filter { $0.page == "README.md" }.flatMap(\.lines)
        #expect(readme.contains { $0.hasPrefix("tools/test.sh ") }, "README.md must give tools/test.sh as the test command")
        #expect(readme.contains { $0.hasPrefix("tools/tour.sh ") }, "README.md must give tools/tour.sh as the main job")
    }
}

// MARK: - Pages and their fenced blocks

/// A fenced block of a documentation page.
struct DocumentationBlock: Sendable, CustomTestStringConvertible {
    /// The page, relative to the repository (`README.md`, `docs/mig.md`).
    let page: String
    /// The 1-based line of the block's first line of text (the one after the fence).
    let line: Int
    /// The first word of the fence's info string (`scn`, `console`, `sh`, `text`, …).
    let kind: String
    let lines: [String]

    var testDescription: String { "\(page):\(line) (\(kind))" }
    var sourceLocation: SourceLocation {
        SourceLocation(
            fileID: page.contains("/") ? page : "Workbench/\(page)", filePath: Repository.root.appendingPathComponent(page).path,
            line: line, column: 1)
    }
}

enum DocumentationPages {
    /// README.md and every docs/*.md, relative to the repository.
    static let pages: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: Repository.root.appendingPathComponent("docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }()

    static func lines(of page: String) -> [String] {
        let text = (try? String(contentsOf: Repository.root.appendingPathComponent(page), encoding: .utf8)) ?? ""
        return text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// Every fenced block of every page whose fence names `kind`.
    static func blocks(of kind: String) -> [DocumentationBlock] {
        pages.flatMap { page in blocks(in: page).filter { $0.kind == kind } }
    }

    static func blocks(in page: String) -> [DocumentationBlock] {
        var blocks: [DocumentationBlock] = []
        var open: (line: Int, kind: String, indent: Int, lines: [String])?
        for (index, line) in lines(of: page).enumerated() {
            let trimmed = line.drop { $0 == " " }
            if var block = open {
                if trimmed.hasPrefix("```") {
                    blocks.append(DocumentationBlock(page: page, line: block.line, kind: block.kind, lines: block.lines))
                    open = nil
                } else {
                    block.lines.append(String(line.dropFirst(min(block.indent, line.prefix { $0 == " " }.count))))
                    open = block
                }
            } else if trimmed.hasPrefix("```") {
                let kind = trimmed.dropFirst(3).split(separator: " ").first.map(String.init) ?? ""
                open = (index + 2, kind, line.count - trimmed.count, [])
            }
        }
        return blocks
    }

    /// The links of a page outside its fenced blocks and code spans that point into the repository.
    static func relativeLinks(of page: String) -> [(line: Int, target: String)] {
        var links: [(line: Int, target: String)] = []
        var inFence = false
        for (index, line) in lines(of: page).enumerated() {
            if line.drop(while: { $0 == " " }).hasPrefix("```") {
                inFence.toggle()
                continue
            }
            if inFence { continue }
            let prose = line.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter { $0.offset % 2 == 0 }
                .map(\.element).joined(separator: " ")
            var rest = prose[...]
            while let open = rest.range(of: "](") {
                let after = rest[open.upperBound...]
                guard let close = after.firstIndex(of: ")") else { break }
                let target = String(after[..<close])
                if !target.contains("://"), !target.hasPrefix("mailto:") { links.append((index + 1, target)) }
                rest = after[close...]
            }
        }
        return links
    }

    /// The anchors GitHub makes of a page's headings: lower case, punctuation dropped, spaces as hyphens.
    static func anchors(of page: String) throws -> Set<String> {
        var anchors: Set<String> = []
        var inFence = false
        for line in lines(of: page) {
            if line.hasPrefix("```") { inFence.toggle() }
            guard !inFence, line.hasPrefix("#") else { continue }
            let title = line.drop { $0 == "#" }.trimmingCharacters(in: .whitespaces).lowercased()
            let kept = title.unicodeScalars.filter { CharacterSet.alphanumerics.contains($0) || $0 == " " || $0 == "-" || $0 == "_" }
            anchors.insert(String(String.UnicodeScalarView(kept)).replacingOccurrences(of: " ", with: "-"))
        }
        return anchors
    }
}

// MARK: - Console transcripts

/// A ```` ```console ```` block: lines after a `workbench> ` or `workbench TIME> ` prompt are typed, the lines under
/// one are what the console prints for it. A line `…` stands for any lines, `…` inside a line for any text, and
/// `  # words` ending a printed line is a note on the page.
struct ConsoleTranscript {
    struct Entry {
        let line: Int
        let promptTime: String?
        let input: String
        var expected: [Expected] = []
    }

    enum Expected {
        case anyLines
        case line(String)

        var shown: String {
            switch self {
            case .anyLines: "…"
            case .line(let text): text
            }
        }
    }

    private(set) var entries: [Entry] = []
    private(set) var problems: [(where: String, what: String)] = []

    /// - parameters:
    ///   - prompt: what is typed on a line that has a prompt (the console's, by default), and the time the prompt shows.
    init(_ block: DocumentationBlock, prompt: (String) -> (time: String?, input: String)? = Self.prompt) {
        for (offset, text) in block.lines.enumerated() {
            let number = block.line + offset
            if let prompt = prompt(text) {
                entries.append(Entry(line: number, promptTime: prompt.time, input: prompt.input))
            } else if entries.isEmpty {
                problems.append(("\(block.page):\(number)", "a transcript starts with a prompt (workbench> or $)"))
            } else {
                let shown = Self.withoutNote(text)
                guard !shown.isEmpty else { continue }
                entries[entries.count - 1].expected.append(shown.trimmingCharacters(in: .whitespaces) == "…" ? .anyLines : .line(shown))
            }
        }
    }

    /// `workbench> LINE` (the first prompt) or `workbench 1h0m0.16s> LINE`.
    static func prompt(_ text: String) -> (time: String?, input: String)? {
        guard text.hasPrefix("workbench"), let end = text.range(of: "> ") else { return nil }
        let between = text[text.index(text.startIndex, offsetBy: "workbench".count)..<end.lowerBound]
        if between.isEmpty { return (nil, String(text[end.upperBound...])) }
        guard between.hasPrefix(" "), !between.dropFirst().contains(" ") else { return nil }
        return (String(between.dropFirst()), String(text[end.upperBound...]))
    }

    /// A printed line without the page's note (two or more spaces, then `# `).
    static func withoutNote(_ text: String) -> String {
        guard let note = text.range(of: #" {2,}# "#, options: .regularExpression) else { return text.trimmingTrailingSpaces }
        return String(text[..<note.lowerBound]).trimmingTrailingSpaces
    }

    static func matches(_ expected: [Expected], _ actual: ArraySlice<String>) -> Bool {
        guard let first = expected.first else { return actual.isEmpty }
        let rest = Array(expected.dropFirst())
        switch first {
        case .anyLines:
            return (actual.startIndex...actual.endIndex).contains { matches(rest, actual[$0...]) }
        case .line(let pattern):
            guard let line = actual.first, lineMatches(pattern, line) else { return false }
            return matches(rest, actual.dropFirst())
        }
    }

    /// `pattern` is the line, with `…` standing for any text.
    static func lineMatches(_ pattern: String, _ line: String) -> Bool {
        let pieces = pattern.components(separatedBy: "…")
        guard pieces.count > 1 else { return pattern == line }
        guard line.hasPrefix(pieces[0]), line.dropFirst(pieces[0].count).hasSuffix(pieces[pieces.count - 1]) else { return false }
        var rest = line.dropFirst(pieces[0].count).dropLast(pieces[pieces.count - 1].count)
        for piece in pieces.dropFirst().dropLast() where !piece.isEmpty {
            guard let found = rest.range(of: piece) else { return false }
            rest = rest[found.upperBound...]
        }
        return true
    }
}

// MARK: - Shell examples

/// A ```` ```sh ```` block: when some lines start with `$ `, those are the commands (the others are what they print);
/// otherwise every line that is not a comment is. A `\` at the end of a line continues the command.
enum ShellExample {
    struct Command {
        let line: Int
        /// The command's simple commands (split at `|`, `&&`, `||`, `;`), as words, redirections left out.
        let simpleCommands: [[String]]
    }

    static func commands(of block: DocumentationBlock) -> [Command] {
        let prompted = block.lines.contains { $0.hasPrefix("$ ") }
        var commands: [Command] = []
        var pending: (line: Int, text: String)?
        for (offset, text) in block.lines.enumerated() {
            var body: String
            if let open = pending {
                body = open.text + " " + text.trimmingCharacters(in: .whitespaces)
            } else if prompted {
                guard text.hasPrefix("$ ") else { continue }
                body = String(text.dropFirst(2))
            } else {
                guard !text.trimmingCharacters(in: .whitespaces).isEmpty, !text.hasPrefix("#") else { continue }
                body = text
            }
            let line = pending?.line ?? block.line + offset
            if body.hasSuffix("\\") {
                body.removeLast()
                pending = (line, body)
                continue
            }
            pending = nil
            commands.append(Command(line: line, simpleCommands: simpleCommands(body)))
        }
        return commands
    }

    /// Splits a shell line into words the way sh would for these examples: quotes kept together, a comment dropped,
    /// redirections and their targets dropped, `|`, `&&`, `||` and `;` separating commands.
    static func simpleCommands(_ line: String) -> [[String]] {
        var commands: [[String]] = [[]]
        var word = ""
        var inWord = false
        var quote: Character?
        var skipNext = false
        func endWord() {
            if inWord {
                if skipNext { skipNext = false } else { commands[commands.count - 1].append(word) }
            }
            word = ""
            inWord = false
        }
        var chars = line[...]
        while let c = chars.popFirst() {
            if let open = quote {
                if c == open { quote = nil } else { word.append(c) }
                continue
            }
            switch c {
            case "'", "\"":
                quote = c
                inWord = true
            case " ", "\t":
                endWord()
            case "#" where !inWord:
                chars = ""
            case "|", ";", "&":
                endWord()
                if commands[commands.count - 1].isEmpty == false { commands.append([]) }
                chars = chars.drop { $0 == "|" || $0 == "&" }
            case ">", "<":
                if word == "1" || word == "2" { (word, inWord) = ("", false) } else { endWord() }
                chars = chars.drop { $0 == ">" || $0 == "&" }
                skipNext = true
            default:
                word.append(c)
                inWord = true
            }
        }
        endWord()
        return commands.filter { !$0.isEmpty }.map { words in Array(words.drop { $0.contains("=") && !$0.hasPrefix("-") }) }
    }

    /// The arguments when `words` run the workbench (`workbench …`, `.build/debug/workbench …`, `swift run workbench …`).
    static func workbenchArguments(_ words: [String]) -> [String]? {
        guard let program = words.first else { return nil }
        if program == "workbench" || program.hasSuffix("/workbench") { return Array(words.dropFirst()) }
        if words.starts(with: ["swift", "run", "workbench"]) { return Array(words.dropFirst(3)) }
        return nil
    }

    /// What is wrong with `workbench ARGUMENTS`, if anything. A synopsis (with `[…]`, `(…)`, `A|B` or `…`) names a
    /// command whose every `--option` must be one of that command's; a command line must parse as it is.
    static func problem(workbench arguments: [String]) -> String? {
        let synopsis = arguments.contains { word in word.contains { "[]()…|".contains($0) } }
        guard synopsis else {
            do {
                _ = try WorkbenchCommand.parseAsRoot(arguments)
                return nil
            } catch {
                return "does not parse: \(WorkbenchCommand.message(for: error))"
            }
        }
        var commands: [any ParsableCommand.Type] = [WorkbenchCommand.self]
        var words = arguments[...]
        while let word = words.first {
            let names = word.split(separator: "|").map(String.init)
            let found = names.compactMap { name in
                commands[0].configuration.subcommands.first { $0.configuration.commandName == name }
            }
            guard found.count == names.count, !found.isEmpty else { break }
            commands = found
            words = words.dropFirst()
        }
        for word in words {
            for option in options(in: word) {
                for command in commands where !accepts(command, option) {
                    return "\(command.configuration.commandName ?? "workbench") has no option \(option)"
                }
            }
        }
        return nil
    }

    /// The options a synopsis word names (`[--seed` → `--seed`, `--faults=F` → `--faults`, `-v]` → `-v`).
    static func options(in word: String) -> [String] {
        let trimmed = word.trimmingCharacters(in: CharacterSet(charactersIn: "[]()…"))
        return trimmed.split(separator: "|").compactMap { alternative in
            guard alternative.hasPrefix("-"), alternative.count > 1 else { return nil }
            let name = alternative.prefix { $0 == "-" || $0.isLetter || $0.isNumber }
            return name.count > 1 ? String(name) : nil
        }
    }

    /// Whether `command` (or the subcommand it runs by default) takes `option`, by its help.
    static func accepts(_ command: any ParsableCommand.Type, _ option: String) -> Bool {
        if let fallback = command.configuration.defaultSubcommand, accepts(fallback, option) { return true }
        let help = WorkbenchCommand.helpMessage(for: command, includeHidden: true, columns: 10_000)
        var rest = help[...]
        while let found = rest.range(of: option) {
            let before = found.lowerBound == help.startIndex ? " " : help[help.index(before: found.lowerBound)]
            let after = found.upperBound == help.endIndex ? " " : help[found.upperBound]
            if !(before.isLetter || before.isNumber || before == "-"), !(after.isLetter || after.isNumber || after == "-") { return true }
            rest = help[found.upperBound...]
        }
        return false
    }
}

extension String {
    fileprivate var trimmingTrailingSpaces: String {
        var text = self
        while text.last == " " || text.last == "\t" { text.removeLast() }
        return text
    }
}
