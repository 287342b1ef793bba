import MarkupEscaping
import Scenario

/// A JUnit XML report: a test suite per scenario file, a test case per expectation and per broken invariant.
public struct JUnitReport {
    let results: [ScenarioRunner.Result]

    public init(results: [ScenarioRunner.Result]) {
        self.results = results
    }

    /// The report as XML, ready to write to a file.
    public var xml: String {
        var out = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n"
        for result in results {
            let failures = result.failures.count + result.violations.count + (result.error == nil ? 0 : 1)
            let tests = result.expectations.count + result.violations.count + (result.error == nil ? 0 : 1)
            out += "  <testsuite name=\"\(MarkupText.escaped(result.title, .attributeSafe))\" tests=\"\(tests)\" failures=\"\(failures)\">\n"
            out +=
                "    <properties><property name=\"seed\" value=\"\(result.seed)\"/><property name=\"digest\" value=\"\(result.digest)\"/></properties>\n"
            for expectation in result.expectations {
                out +=
                    "    <testcase classname=\"\(MarkupText.escaped(result.file, .attributeSafe))\" name=\"line \(expectation.line): \(MarkupText.escaped(expectation.text, .attributeSafe))\""
                if let failure = expectation.failure {
                    out += ">\n      <failure message=\"\(MarkupText.escaped(failure, .attributeSafe))\"/>\n    </testcase>\n"
                } else {
                    out += "/>\n"
                }
            }
            for violation in result.violations {
                out +=
                    "    <testcase classname=\"\(MarkupText.escaped(result.file, .attributeSafe))\" name=\"invariant \(MarkupText.escaped(violation.invariant, .attributeSafe))\">\n"
                    + "      <failure message=\"\(MarkupText.escaped(violation.summary(file: result.file), .attributeSafe))\"/>\n    </testcase>\n"
            }
            if let error = result.error {
                out +=
                    "    <testcase classname=\"\(MarkupText.escaped(result.file, .attributeSafe))\" name=\"run\">\n      <error message=\"\(MarkupText.escaped(error, .attributeSafe))\"/>\n    </testcase>\n"
            }
            out += "  </testsuite>\n"
        }
        return out + "</testsuites>\n"
    }
}
