import Testing
import Wire

/// Fault points as scenarios switch them: every mode fires exactly when it says, counts are kept, and `chance`
/// is reproduced by its seed.
@Suite struct FaultPointsTests {
    static func points(seed: UInt64 = 1) -> FaultPoints { FaultPoints(random: RandomStream(seed: seed, name: "faults")) }

    /// A point's mode and counts, as `mode checks/fired`.
    static func summary(_ points: FaultPoints, _ name: String) -> String? {
        points.point(name).map { "\($0.mode) \($0.checks)/\($0.fired)" }
    }

    static func firings(_ points: FaultPoints, _ name: String, _ checks: Int) -> [Bool] {
        (0..<checks).map { _ in points.fires(name) }
    }

    @Test func anUnknownPointNeverFiresAndBecomesKnownWhenChecked() {
        let points = Self.points()
        #expect(points.point("printer.jam") == nil)
        #expect(Self.firings(points, "printer.jam", 3) == [false, false, false])
        #expect(Self.summary(points, "printer.jam") == "off 3/0")
    }

    @Test func declaringMakesAPointKnownWithoutChangingItsMode() {
        let points = Self.points()
        points.declare("a")
        #expect(Self.summary(points, "a") == "off 0/0")
        points.set("a", .on)
        points.declare("a")
        #expect(points.point("a")?.mode == .on)
    }

    @Test func onFiresEveryTimeAndOffStopsIt() {
        let points = Self.points()
        points.set("p", .on)
        #expect(Self.firings(points, "p", 3) == [true, true, true])
        points.set("p", .off)
        #expect(Self.firings(points, "p", 2) == [false, false])
        #expect(Self.summary(points, "p") == "off 5/3")
    }

    @Test func timesFiresThatManyTimesThenTurnsOff() {
        let points = Self.points()
        points.set("p", .times(2))
        #expect(points.fires("p"))
        #expect(points.point("p")?.mode == .times(1))
        #expect(Self.firings(points, "p", 3) == [true, false, false])
        #expect(Self.summary(points, "p") == "off 4/2")
        points.set("q", .times(0))
        #expect(!points.fires("q"))
    }

    @Test func afterStaysQuietForThatManyChecksThenFiresEveryTime() {
        let points = Self.points()
        points.set("p", .after(2))
        #expect(Self.firings(points, "p", 5) == [false, false, true, true, true])
        // Checks made before the mode was set count too: the point has been checked that often.
        points.set("q", .off)
        _ = Self.firings(points, "q", 2)
        points.set("q", .after(2))
        #expect(points.fires("q"))
    }

    @Test func chanceIsReproducedBySeedAndFollowsItsProbability() {
        func run(_ seed: UInt64, _ p: Double, _ checks: Int = 200) -> [Bool] {
            let points = Self.points(seed: seed)
            points.set("p", .chance(p))
            return Self.firings(points, "p", checks)
        }
        #expect(run(7, 0.5) == run(7, 0.5))
        #expect(run(7, 0.5) != run(8, 0.5))
        #expect(!run(7, 0).contains(true))
        #expect(!run(7, 1).contains(false))
        let fired = run(9, 0.3, 2_000).filter { $0 }.count
        #expect((450...750).contains(fired), "\(fired) of 2000 at p=0.3")
    }

    @Test func chanceDrawsOnlyWhenItIsChecked() {
        // Points that do not draw (on, off, …) leave the seeded stream alone, so switching an unrelated point does not
        // change which checks of a `chance` point fire.
        func run(withOthers: Bool) -> [Bool] {
            let points = Self.points(seed: 3)
            points.set("p", .chance(0.5))
            points.set("other", .on)
            return (0..<50).map { _ in
                if withOthers {
                    _ = points.fires("other")
                    _ = points.fires("unknown")
                }
                return points.fires("p")
            }
        }
        #expect(run(withOthers: true) == run(withOthers: false))
    }

    @Test func everyPointIsListedByName() {
        let points = Self.points()
        points.set("z", .on)
        points.declare("a")
        _ = points.fires("m")
        #expect(points.all.map(\.name) == ["a", "m", "z"])
    }

    @Test func modesDescribeThemselvesAsScenariosWriteThem() {
        #expect(FaultPoints.Mode.off.description == "off")
        #expect(FaultPoints.Mode.on.description == "on")
        #expect(FaultPoints.Mode.times(1).description == "once")
        #expect(FaultPoints.Mode.times(3).description == "times 3")
        #expect(FaultPoints.Mode.chance(0.25).description == "chance 0.25")
        #expect(FaultPoints.Mode.after(4).description == "after 4")
    }
}
