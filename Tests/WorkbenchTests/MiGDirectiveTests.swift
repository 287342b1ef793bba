import Testing

@testable import SystemKit
@testable import Workbench

/// `mig job` and `mig wait` give what Get-Job-Attributes reports at that moment: the impressions printed, and with
/// `sheets` the sheets printed.
@Suite struct MiGDirectiveTests {
    /// A console that has run `lines`, each of them successfully, and what it printed.
    static func console(_ lines: [String]) -> (ConsoleSession, LinesBox) {
        let printed = LinesBox()
        let session = ConsoleSession(seed: 1, write: { printed.append($0) })
        for line in lines { #expect(session.handle(line) == .proceed, "\(line): \(printed.all.last ?? "")") }
        return (session, printed)
    }

    @Test func jobAndWaitGiveTheImpressionsAndSheetsPrintedSoFar() throws {
        let (session, _) = Self.console([
            "start mig ppm=60", "mig print bytes 1000000 sides two-sided-long-edge as printed", "advance 4500ms",
            "mig job ${printed.job} sheets as midway", "mig wait ${printed.job} sheets as done",
            // Checked when the line is read: the fields are declared, so a scenario may name them.
            "expect ${done.impressions} == 10", "expect ${done.sheets} == 5",
        ])
        let values = session.context.variables
        let midway = try #require(values["midway.impressions"].flatMap { Int($0) })
        #expect((1..<10).contains(midway), "printing at one page a second, part way: \(midway)")
        #expect(values["midway.sheets"] == String((midway + 1) / 2), "two-sided: two impressions a sheet")
        #expect(values["midway.pages"] == String(midway), ".pages is .impressions")
        #expect(values["done.state"] == "completed")
    }

    /// A `mig` line's options are parsed when it is read: a page range the client could not send stops the scenario
    /// before it starts, at its column.
    @Test func aWrongPageRangeIsRefusedWhenTheLineIsRead() {
        for range in ["3-1", "0-2", "1-", "a-b", "2"] {
            let errors = Catalog.language.parse(file: "t.scn", text: "start mig\nmig print pages \(range) as p\n").1
            #expect(
                errors.map(\.description) == ["t.scn:2:17: pages \(range): expected FIRST-LAST, 1 ≤ FIRST ≤ LAST (e.g. 1-3)"], "\(range): \(errors)")
        }
        #expect(Catalog.language.parse(file: "t.scn", text: "start mig\nmig print pages 2-4 as p\n").1.isEmpty)
    }

    @Test func copiesStartOnANewSheet() {
        let (session, _) = Self.console([
            "start mig", "mig print bytes 1000000 copies 2 as p", "mig wait ${p.job} sheets as w",
            "expect ${w.impressions} == 20", "expect ${w.sheets} == 20",
        ])
        #expect(session.context.variables["w.sheets"] == "20")
    }

    /// Without `sheets` the client sends the request it always sent (a simulated run's trace stays the same), and
    /// `.sheets` is not there to be read.
    @Test func sheetsAreAskedForOnlyWhenTheLineSaysSo() {
        let plain = ["start mig", "mig print bytes 1000000 as p", "mig wait ${p.job} as w"]
        let (session, printed) = Self.console(plain + ["expect ${w.impressions} == 10"])
        #expect(session.handle("expect ${w.sheets} == 10") == .failed(ExitStatus.scenarioWrong))
        #expect(printed.all.last?.contains("gives no 'sheets'") == true, "\(printed.all.last ?? "")")
        #expect(session.handle("mig print sheets as q") == .failed(ExitStatus.scenarioWrong))
        #expect(printed.all.last?.contains("'sheets' goes with mig wait or mig job") == true, "\(printed.all.last ?? "")")

        let (counting, _) = Self.console(["start mig", "mig print bytes 1000000 as p", "mig wait ${p.job} sheets as w"])
        let (again, _) = Self.console(plain)
        let digestAfterPlain = again.kernel.trace.digest
        #expect(counting.kernel.trace.digest != digestAfterPlain, "asking for sheets is a longer request")
    }
}
