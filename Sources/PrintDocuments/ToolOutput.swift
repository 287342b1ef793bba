/// What an emulated command-line tool printed and how it exited.
public struct ToolOutput: Sendable, Equatable {
    public var stdout: String
    public var stderr: String
    public var exitStatus: Int32

    public init(stdout: String = "", stderr: String = "", exitStatus: Int32 = 0) {
        self.stdout = stdout
        self.stderr = stderr
        self.exitStatus = exitStatus
    }
}

/// What a converter run produced: the file it writes (if any), where, its pages, and what it printed.
public struct ConversionResult: Sendable, Equatable {
    /// The file the tool writes; nil when it writes none. An empty array is an empty file (docs-to-pdf creates its
    /// output before it knows whether it can convert).
    public var output: [UInt8]?
    /// Where it writes it: as given, or derived (Impose writes `<input without .pdf>-up.pdf`).
    public var outputPath: String?
    /// Pages of the output (0 when none).
    public var pages: Int
    public var printed: ToolOutput

    public init(output: [UInt8]?, outputPath: String?, pages: Int, printed: ToolOutput) {
        self.output = output
        self.outputPath = outputPath
        self.pages = pages
        self.printed = printed
    }

    /// What every emulated tool answers for input beyond the module's limits (64 MiB, 10,000 pages): no real tool
    /// says this — the workbench refuses, on stderr, exit status 1, rather than pretend.
    static func refusal(_ message: String) -> ConversionResult {
        .failure(ToolOutput(stderr: "workbench: \(message)\n", exitStatus: 1))
    }

    static func refusalIfTooLarge(_ input: [UInt8]) -> ConversionResult? {
        input.count > DocumentLimits.maximumDocumentBytes
            ? refusal("refusing a document of \(input.count) bytes; the limit is \(DocumentLimits.maximumDocumentBytes)") : nil
    }

    static func tooManyPages(_ pages: Int) -> ConversionResult {
        refusal("refusing a document of \(pages) pages; the limit is \(DocumentLimits.maximumPages)")
    }

    /// Nothing written, only messages.
    static func failure(_ printed: ToolOutput) -> ConversionResult {
        ConversionResult(output: nil, outputPath: nil, pages: 0, printed: printed)
    }
}
