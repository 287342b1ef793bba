import Kernel
import Wire

/// Runs parsed scenarios on a fresh kernel and reports what happened.
public struct ScenarioRunner: Sendable {
    public let language: ScenarioLanguage
    public let catalog: [ActorKind]

    public init(language: ScenarioLanguage, catalog: [ActorKind]) {
        self.language = language
        self.catalog = catalog
    }

    /// The outcome of one scenario run.
    public struct Result: Sendable {
        public let file: String
        public let title: String
        public let seed: UInt64
        public let expectations: [ScenarioContext.Expectation]
        /// A step that could not run (the scenario stopped there), with its place.
        public let error: String?
        public let digest: String
        public let trace: String
        public let virtualTime: Duration
        public let traceEvents: Int

        public var failures: [ScenarioContext.Expectation] { expectations.filter { $0.failure != nil } }
        public var passed: Bool { error == nil && failures.isEmpty }
    }

    /// Runs every statement of `script` in order on a new kernel seeded with `seed`.
    public func run(_ script: Script, seed: UInt64, output: @escaping @Sendable (String) -> Void) -> Result {
        let kernel = Kernel(seed: seed)
        let context = ScenarioContext(kernel: kernel, catalog: catalog, file: script.file, output: output)
        // Only the file's name: the trace depends on seed and build, not on how the path was typed.
        let name = script.file.split(separator: "/").last.map(String.init) ?? script.file
        kernel.trace.record(actor: "scenario", event: "begin", fields: [("file", name), ("seed", String(seed))])
        var error: String?
        for statement in script.statements {
            do {
                try execute(statement, in: context)
            } catch let failure {
                error = "\(statement.file):\(statement.line): \(statement.directive): \(failure)"
                break
            }
        }
        for (name, _) in context.background.sorted(by: { $0.key < $1.key }) {
            kernel.trace.record(actor: "scenario", event: "unjoined", fields: [("name", name)])
        }
        let violations = kernel.loop.violations
        if error == nil, !violations.isEmpty {
            error = "\(script.file): determinism violations: \(violations.joined(separator: "; "))"
        }
        kernel.trace.record(actor: "scenario", event: "end", fields: [
            ("expectations", String(context.expectations.count)), ("failed", String(context.failures.count)),
        ])
        return Result(file: script.file, title: context.title ?? script.file, seed: seed, expectations: context.expectations,
                      error: error, digest: kernel.trace.digest, trace: kernel.trace.canonicalText,
                      virtualTime: kernel.now, traceEvents: kernel.trace.count)
    }

    /// Runs one statement: the step, then the work it started, driven to completion.
    public func execute(_ statement: Statement, in context: ScenarioContext) throws {
        context.line = statement.line
        if let pending = try statement.step.run(context) {
            context.publish(pending.label, try pending.wait(context, pending.timeout))
        }
    }
}
