import ArgumentParser

/// `workbench bench …`: the performance harness. Figures to compare across builds; a bench with targets says
/// whether each was met, and fails on a missed one only when asked (`--check`).
struct BenchCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "bench",
        abstract: "Measure the kernel, the IPP codec, the JWT core and the actors.",
        // `load` drives every system's actors at once, so it belongs to no one system's benches.
        subcommands: Catalog.benches + [LoadBenchCommand.self]
    )
}
