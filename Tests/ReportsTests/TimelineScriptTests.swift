import Foundation
import TestSupport
import Testing

/// The timeline page's script as the file it is: a syntax error there would only show as a page that never draws,
/// so node parses it on its own, before any browser test loads it.
@Suite struct TimelineScriptTests {
    static let node = "/usr/bin/node"

    @Test func scriptParses() throws {
        let script = Repository.root.appendingPathComponent("Sources/Reports/timeline.js").path
        // Without node this throws "/usr/bin/node is not installed; tools/setup.sh installs it (see tools/apt-packages.txt)".
        let check = try ExternalProcess.run(Self.node, ["--check", script])
        #expect(check.status == 0, "node --check \(script) refused it:\n\(check.output)")
    }
}
