import MarkupEscaping

extension SwarmResult {
    /// A JUnit XML report: a test suite per file, a test case per seed (with `--explore`, per run: `seed 12 mutant 7`
    /// for a mutant), a failing one with its failure lines; the swarm options once per suite, as a property.
    public var junitXML: String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
        for file in files {
            let mine = runs.filter { $0.file == file }
            out +=
                "  <testsuite name=\"swarm \(MarkupText.escaped(file, .attributeSafe))\" tests=\"\(mine.count)\" failures=\"\(mine.filter { !$0.passed }.count)\">\n"
            out += "    <properties><property name=\"faults\" value=\"\(faults.rawValue)\"/>"
            out += "<property name=\"swarm-options\" value=\"\(MarkupText.escaped(options.description, .attributeSafe))\"/>"
            if let explore {
                // How the runs were spent: CI shows fresh seeds and mutants apart.
                out += "<property name=\"explore-share\" value=\"\(explore.share)\"/>"
                out += "<property name=\"fresh-runs\" value=\"\(mine.filter { $0.mutant == nil }.count)\"/>"
                out += "<property name=\"mutant-runs\" value=\"\(mine.filter { $0.mutant != nil }.count)\"/>"
            }
            out += "</properties>\n"
            for run in mine {
                out += "    <testcase classname=\"\(MarkupText.escaped(file, .attributeSafe))\" name=\"\(run.name)\""
                if run.passed {
                    out += "/>\n"
                } else {
                    out +=
                        ">\n      <failure message=\"\(MarkupText.escaped(run.failureLine(faults: faults, mix: mix), .attributeSafe))\"/>\n    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        let reach = self.reach
        if !reach.isEmpty {
            // A point never reached is skipped, or failed under --require-reach: what the swarm did not explore shows in CI.
            let never = neverReached.count
            out +=
                "  <testsuite name=\"swarm reach\" tests=\"\(reach.count)\" failures=\"\(requireReach ? never : 0)\" skipped=\"\(requireReach ? 0 : never)\">\n"
            for (point, seeds) in reach {
                out += "    <testcase classname=\"reach\" name=\"\(MarkupText.escaped(point, .attributeSafe))\""
                if seeds > 0 {
                    out += ">\n      <system-out>reached by \(seeds) \(reachUnit.dropLast(seeds == 1 ? 1 : 0))</system-out>\n    </testcase>\n"
                } else {
                    out +=
                        ">\n      <\(requireReach ? "failure" : "skipped") message=\"never reached by any \(reachUnit.dropLast())\"/>\n    </testcase>\n"
                }
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }
}
