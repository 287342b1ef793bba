import MarkupEscaping
import Scenario

/// A JUnit XML report: a test suite per scenario file, a test case per expectation and per broken invariant.
struct JUnitReport {
    let results: [ScenarioRunner.Result]

    var xml: String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
        for result in results {
            let failures = result.failures.count + result.violations.count + (result.error == nil ? 0 : 1)
            let tests = result.expectations.count + result.violations.count + (result.error == nil ? 0 : 1)
            out += "  <testsuite name=\"\(xmlEscape(result.title))\" tests=\"\(tests)\" failures=\"\(failures)\">\n"
            out += "    <properties><property name=\"seed\" value=\"\(result.seed)\"/><property name=\"digest\" value=\"\(result.digest)\"/></properties>\n"
            for expectation in result.expectations {
                out += "    <testcase classname=\"\(xmlEscape(result.file))\" name=\"line \(expectation.line): \(xmlEscape(expectation.text))\""
                if let failure = expectation.failure {
                    out += ">\n      <failure message=\"\(xmlEscape(failure))\"/>\n    </testcase>\n"
                } else {
                    out += "/>\n"
                }
            }
            for violation in result.violations {
                out += "    <testcase classname=\"\(xmlEscape(result.file))\" name=\"invariant \(xmlEscape(violation.invariant))\">\n"
                    + "      <failure message=\"\(xmlEscape(violation.summary(file: result.file)))\"/>\n    </testcase>\n"
            }
            if let error = result.error {
                out += "    <testcase classname=\"\(xmlEscape(result.file))\" name=\"run\">\n      <error message=\"\(xmlEscape(error))\"/>\n    </testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }
}
