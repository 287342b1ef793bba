import Workbench

/// The executable's entry point: the command tree lives in the `Workbench` library so tests can reach it.
@main
enum WorkbenchMain {
    static func main() async {
        await WorkbenchCommand.main(nil)
    }
}
