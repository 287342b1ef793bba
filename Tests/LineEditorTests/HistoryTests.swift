import LineEditor
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite struct HistoryTests {
    /// A fresh directory per test, so tests can run in parallel.
    private func temporaryDirectory() -> String {
        var template = Array("/tmp/line-editor-tests-XXXXXX".utf8CString)
        let path = template.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) }
        return String(cString: path!)
    }

    private func contents(of path: String) -> String? {
        guard let file = fopen(path, "r") else { return nil }
        defer { fclose(file) }
        var result: [UInt8] = []
        while true {
            let byte = fgetc(file)
            if byte == EOF { break }
            result.append(UInt8(byte))
        }
        return String(decoding: result, as: UTF8.self)
    }

    @Test func addSkipsBlankAndRepeatedLines() {
        let history = History()
        #expect(history.add("run"))
        #expect(!history.add("run"))
        #expect(!history.add("   "))
        #expect(!history.add(""))
        #expect(history.add("help"))
        #expect(history.add("run"))
        #expect(history.entries == ["run", "help", "run"])
    }

    @Test func limitKeepsTheNewest() {
        let history = History(limit: 2)
        for line in ["a", "b", "c"] { history.add(line) }
        #expect(history.entries == ["b", "c"])
    }

    @Test func roundTripWithNewlinesAndBackslashes() throws {
        let path = temporaryDirectory() + "/state/workbench/history"
        let entries = ["plain", "two\nlines", "back\\slash", "literal \\n not a newline", "cr\r", "ünïcødé 😀"]
        let history = History()
        try history.load(from: path)  // missing file: empty, and the directory is created on write
        #expect(history.entries.isEmpty)
        for entry in entries { history.add(entry) }

        // Appended line by line as they were added, before any save.
        let appended = History()
        try appended.load(from: path)
        #expect(appended.entries == entries)
        #expect(contents(of: path)?.split(separator: "\n").count == entries.count)

        try history.save()
        let saved = History()
        try saved.load(from: path)
        #expect(saved.entries == entries)
    }

    @Test func loadKeepsTheLastEntriesUpToTheLimit() throws {
        let path = temporaryDirectory() + "/history"
        let writer = History()
        try writer.load(from: path)
        for index in 0..<10 { writer.add("line \(index)") }
        let reader = History(limit: 3)
        try reader.load(from: path)
        #expect(reader.entries == ["line 7", "line 8", "line 9"])
    }

    @Test func fileIsCompactedWhenItGrowsPastTwiceTheLimit() throws {
        let path = temporaryDirectory() + "/history"
        let history = History(limit: 3)
        try history.load(from: path)
        for index in 0..<7 { history.add("line \(index)") }
        #expect(contents(of: path) == "line 4\nline 5\nline 6\n")
    }

    @Test func unknownEscapesSurvive() throws {
        let path = temporaryDirectory() + "/history"
        let file = fopen(path, "w")
        fputs("a\\tb\nend\\\n", file)
        fclose(file)
        let history = History()
        try history.load(from: path)
        #expect(history.entries == ["a\\tb", "end\\"])
    }

    @Test func defaultPathFollowsXDGStateHome() {
        #expect(
            History.defaultPath(environment: ["XDG_STATE_HOME": "/state", "HOME": "/home/u"])
                == "/state/workbench/history")
        #expect(
            History.defaultPath(environment: ["XDG_STATE_HOME": "relative", "HOME": "/home/u"])
                == "/home/u/.workbench_history")
        #expect(History.defaultPath(environment: ["HOME": "/home/u/"]) == "/home/u/.workbench_history")
        #expect(!History.defaultPath().isEmpty)
    }
}
