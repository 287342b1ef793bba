import Scenario

/// A JUnit XML report: a test suite per scenario file, a test case per expectation and per broken invariant.
struct JUnitReport {
    let results: [ScenarioRunner.Result]

    var xml: String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
        for result in results {
            let failures = result.failures.count + result.violations.count + (result.error == nil ? 0 : 1)
            let tests = result.expectations.count + result.violations.count + (result.error == nil ? 0 : 1)
            out += "  <testsuite name=\"\(escape(result.title))\" tests=\"\(tests)\" failures=\"\(failures)\">\n"
            out += "    <properties><property name=\"seed\" value=\"\(result.seed)\"/><property name=\"digest\" value=\"\(result.digest)\"/></properties>\n"
            for expectation in result.expectations {
                out += "    <testcase classname=\"\(escape(result.file))\" name=\"line \(expectation.line): \(escape(expectation.text))\""
                if let failure = expectation.failure {
                    out += ">\n      <failure message=\"\(escape(failure))\"/>\n    </testcase>\n"
                } else {
                    out += "/>\n"
                }
            }
            for violation in result.violations {
                out += "    <testcase classname=\"\(escape(result.file))\" name=\"invariant \(escape(violation.invariant))\">\n"
                    + "      <failure message=\"\(escape(violation.summary(file: result.file)))\"/>\n    </testcase>\n"
            }
            if let error = result.error {
                out += "    <testcase classname=\"\(escape(result.file))\" name=\"run\">\n      <error message=\"\(escape(error))\"/>\n    </testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }

    private func escape(_ text: String) -> String {
        var out = ""
        for c in text {
            switch c {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"": out += "&quot;"
            case "\n": out += "&#10;"
            default: out.append(c)
            }
        }
        return out
    }
}
