import Foundation
import TestSupport
import Testing
import WorkbenchKit
import WorkbenchTesting

/// The typed calls and the lines: one world, one executor, one trace.
@Suite struct SimulationTests {
    /// Every typed change as the line it stands for, so a reader of a failing seed's changes sees the language.
    @Test func aChangeIsTheLineItStandsFor() {
        let lines: [(WorldChange, String)] = [
            (
                .link(from: "phone", to: "mig", latency: .fixed(.milliseconds(20)), bandwidth: 2_000_000),
                "link phone <-> mig latency 20ms bandwidth 2000000B/s"
            ),
            (
                .link(from: "phone", to: "mig", latency: .uniform(.milliseconds(5), .milliseconds(150)), bothWays: false),
                "link phone -> mig latency uniform 5ms..150ms"
            ),
            (
                .link(from: "a", to: "b", latency: .normal(mean: .milliseconds(40), deviation: .milliseconds(10))),
                "link a <-> b latency normal 40ms 10ms"
            ),
            (.link(from: "a", to: "b", latency: .exponential(mean: .seconds(90))), "link a <-> b latency exponential 1m30s"),
            (.partition("phone", "mig", for: .milliseconds(1500)), "partition phone <-> mig for 1.5s"),
            (.partition("phone", "mig"), "partition phone <-> mig"),
            (.heal("phone", "mig"), "heal phone <-> mig"),
            (.hold(from: "mig", to: "phone", for: .seconds(3)), "hold mig -> phone for 3s"),
            (.release(from: "mig", to: "phone"), "release mig -> phone"),
            (.reset("phone", "mig"), "reset phone <-> mig"),
            (.resetAfter(bytes: 300, from: "phone", to: "mig"), "reset phone -> mig after 300 bytes"),
            (.fault("mig.busy", .times(2)), "fault mig.busy times 2"),
            (.fault("mig.busy", .chance(0.25)), "fault mig.busy chance 0.25"),
            (.fault("mig.job-abort", .after(3)), "fault mig.job-abort after 3"),
            (.clockSkew(node: "phone", by: .seconds(-120)), "clock phone skew -2m"),
            (.clockSkew(node: "phone", by: .milliseconds(61_500)), "clock phone skew +61500000000ns"),
        ]
        for (change, line) in lines { #expect(change.line == line) }
    }

    /// Typed calls and the same lines leave the same trace: they run through the same executor.
    @Test func typedCallsAndLinesLeaveTheSameTrace() throws {
        let typed = Simulation(seed: 7)
        try typed.start("mig", options: ["ppm": "120"])
        try typed.apply(.link(from: "phone", to: "mig", latency: .fixed(.milliseconds(20))))
        try typed.apply(.fault("mig.busy", .once))
        try typed.apply(.partition("phone", "mig", for: .seconds(2)), after: .seconds(1))
        try typed.advance(by: .seconds(5))

        let lines = Simulation(seed: 7)
        try lines.run(
            """
            start mig ppm=120
            link phone <-> mig latency 20ms
            fault mig.busy once
            later 1s partition phone <-> mig for 2s
            advance 5s
            """)
        #expect(typed.digest == lines.digest)
        #expect(typed.events.count == lines.events.count)
        #expect(typed.changes == ["link phone <-> mig latency 20ms", "fault mig.busy once", "later 1s partition phone <-> mig for 2s"])
        #expect(typed.now == .seconds(5))
    }

    @Test func aFailedExpectationIsKeptWithItsPlaceAndTime() throws {
        let world = Simulation(seed: 1)
        try world.run("advance 3s\nexpect ${seed} == 2", fileID: "Module/Story.swift", line: 40)
        #expect(world.failures.count == 1)
        let failure = try #require(world.failures.first)
        #expect(failure.origin == "Story.swift:41")
        #expect(failure.time == .seconds(3))
        #expect(failure.message.contains("expect ${seed} == 2"))
        world.check(world.now == .seconds(3), "on time")
        world.check(false, "the test's own check", fileID: "Module/Story.swift", line: 50)
        #expect(world.failures.last?.description == "t=3s Story.swift:50: the test's own check")
    }

    @Test func aWrongLineOrCallThrowsAndSaysWhy() throws {
        let world = Simulation(seed: 1)
        #expect(throws: SimulationError.self) { try world.start("mgi") }
        do {
            try world.start("mig", options: ["pmm": "60"])
            Issue.record("an unknown option started mig")
        } catch {
            #expect(error.message.contains("did you mean 'ppm'?"))
        }
        do {
            try world.apply(.fault("mig.ofline", .on))
            Issue.record("an unknown fault point was switched")
        } catch {
            #expect(error.message.contains("mig.ofline"))
        }
        do {
            try world.run("frobnicate now")
            Issue.record("an unknown directive ran")
        } catch {
            #expect(error.message.contains("unknown directive 'frobnicate'"))
        }
        #expect(world.failures.isEmpty)
    }

    @Test func anActorsURLsAndAScenarioFile() throws {
        let world = Simulation(seed: 1)
        try world.run(file: Repository.root.appendingPathComponent("Simulations/mig-happy-path.scn").path)
        world.finish()
        #expect(world.failures.isEmpty, "\(world.failures)")
        #expect(try world.value(of: "done.state") == "completed")
        let echo = try world.start("echo")
        #expect(echo.host == "echo")
        #expect(echo.urls["http"]?.hasPrefix("http://echo") == true)
        #expect(Simulation.actorKinds.contains("mig"))
        #expect(Simulation.faultPoints(of: "mig").contains("mig.busy"))
    }

    @Test func theTestsOwnCodeRunsInVirtualTime() throws {
        let world = Simulation(seed: 3)
        let phone = world.node("phone")
        let slept = try world.perform("sleep a minute") {
            try await phone.clock.sleep(for: .seconds(60))
            return phone.clock.now.uptime
        }
        #expect(slept == .seconds(60))
        #expect(world.now == .seconds(60))
        #expect(throws: SimulationError.self) {
            try world.perform("sleep past the timeout", timeout: .seconds(1)) { try await phone.clock.sleep(for: .seconds(60)) }
        }
        struct Refused: Error {}
        #expect(throws: Refused.self) { try world.perform("fail") { throw Refused() } }
    }
}
