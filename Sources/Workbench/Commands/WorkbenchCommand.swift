import ArgumentParser

/// `workbench`: the console by default; `run`, `serve` and `bench` as subcommands.
public struct WorkbenchCommand: AsyncParsableCommand {
    public static let configuration = CommandConfiguration(
        commandName: "workbench",
        abstract: "A whole mobile-enterprise ecosystem on one machine: simulated actors, real clients, deterministic scenarios.",
        subcommands: [
            ConsoleCommand.self, RunCommand.self, CompareCommand.self, ServeCommand.self, AttachCommand.self, BenchCommand.self, OpenCommand.self,
            FuzzScenarioCommand.self, SwarmCommand.self, ShrinkCommand.self, InvariantsCommand.self, ReachCommand.self, RecordCommand.self,
            DiffCommand.self,
        ],
        defaultSubcommand: ConsoleCommand.self
    )

    public init() {}
}
