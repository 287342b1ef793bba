import Foundation
import MiGClient
import NodeHTTP
import PrintDesk
import Testing
import WorkbenchKit
import WorkbenchTesting

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The app's SCPms registration in the simulated world: its requests go through a `NodeURLSession` on the phone,
/// typed as the `HTTPDataLoading` the app's code is written against (`URLSession` in the app).
@Suite struct DeviceRegistrationTests {
    /// SCPms running, the phone 30 ms away, and the registration on the phone over plain HTTP.
    static func registration(in world: Simulation, policy: DeviceRegistration.Policy = .init()) throws -> DeviceRegistration {
        let scpms = try world.start("scpms")
        try world.apply(.link(from: "phone", to: "scpms", latency: .fixed(.milliseconds(30))))
        // `http://demo:password@scpms:80/com.workbench.demo`: the account, the server and the application.
        let http = try #require(scpms.urls["http"], "scpms serves plain HTTP")
        var url = try #require(URLComponents(string: http))
        let (user, password, application) = (url.user ?? "", url.password ?? "", String(url.path.dropFirst()))
        (url.user, url.password, url.path) = (nil, nil, "")
        let phone = world.node("phone")
        let loader: any HTTPDataLoading = try NodeURLSession(node: phone)
        return DeviceRegistration(
            server: try #require(url.url), applicationId: application, user: user, password: password, loader: loader, clock: phone.clock,
            policy: policy)
    }

    static func registered(_ world: Simulation) -> [String] {
        world.events.filter { $0.actor == "scpms" && $0.name == "registered" }.compactMap { $0["id"] }
    }

    @Test func registersAndFindsItsRegistrationAgain() throws {
        try simulate(seed: 21) { world in
            let registration = try Self.registration(in: world)
            let first = try world.perform("register") { try await registration.ensureRegistered(storedId: nil) }
            guard case .registered(let id) = first else {
                Issue.record("expected a new registration, got \(first)")
                return
            }
            #expect(Self.registered(world) == [id])
            let again = try world.perform("start again") { try await registration.ensureRegistered(storedId: id) }
            #expect(again == .existing(id: id))
            #expect(Self.registered(world) == [id], "no second registration")
        }
    }

    /// An administrator deletes the device's registration (the `scpms delete-registration` line): the next start finds
    /// the server has forgotten it and registers again, under a new id.
    @Test func registersAgainWhenTheServerForgotTheDevice() throws {
        try simulate(seed: 22) { world in
            let registration = try Self.registration(in: world)
            let first = try world.perform("register") { try await registration.ensureRegistered(storedId: nil) }
            try world.run(
                """
                scpms delete-registration \(first.id) as deleted
                expect ${deleted} == true
                """)
            let again = try world.perform("start again") { try await registration.ensureRegistered(storedId: first.id) }
            guard case .reregistered(let id, let forgotten) = again else {
                Issue.record("expected a new registration, got \(again)")
                return
            }
            #expect(forgotten == first.id)
            #expect(id != first.id)
            #expect(Self.registered(world) == [first.id, id])
            let deleted = world.events.filter { $0.actor == "scpms" && $0.name == "registration-deleted" }
            #expect(deleted.map { $0["id"] } == [first.id])
        }
    }

    /// SCPms answers 503 twice and the phone is cut off for the first 20 s: the registration waits, tries again and
    /// registers once.
    @Test func registersThroughUnavailabilityAndAPartition() throws {
        try simulate(seed: 23) { world in
            let registration = try Self.registration(in: world)
            try world.apply(.partition("phone", "scpms", for: .seconds(20)))
            try world.apply(.fault("scpms.unavailable", .times(2)))
            let outcome = try world.perform("register") { try await registration.ensureRegistered(storedId: nil) }
            #expect(Self.registered(world) == [outcome.id])
            // The partition healed at 20 s; two 503s, each followed by a 2 s wait, came before the 201.
            #expect(world.now > .seconds(24), "\(world.now)")
            #expect(world.events.filter { $0.name == "fault-fired" && $0["point"] == "scpms.unavailable" }.count == 2)
        }
    }

    /// Unavailable for longer than the policy tries: the registration gives up and says why.
    @Test func givesUpWhenTheServerStaysUnavailable() throws {
        try simulate(seed: 24) { world in
            var policy = DeviceRegistration.Policy()
            policy.attempts = 3
            let registration = try Self.registration(in: world, policy: policy)
            try world.apply(.fault("scpms.unavailable", .on))
            let failure = try world.perform("register") { () -> DeviceRegistration.Failure? in
                do {
                    _ = try await registration.ensureRegistered(storedId: nil)
                    return nil
                } catch let failure as DeviceRegistration.Failure {
                    return failure
                }
            }
            #expect(failure?.description == "registering: no answer after 3 attempts; the last: HTTP 503")
            #expect(Self.registered(world).isEmpty)
        }
    }

    /// The issue's example whole: the desk prints, the administrator deletes the registration, the app starts again,
    /// registers anew and prints again past a busy printer, in one world.
    @Test func printsReregistersAndPrintsAgain() throws {
        try simulate(seed: 25) { world in
            let registration = try Self.registration(in: world)
            let desk = try PrintDeskTests.desk(in: world)
            let first = try world.perform("start and print") { () -> (DeviceRegistration.Outcome, PrintDesk.Outcome) in
                (try await registration.ensureRegistered(storedId: nil), await desk.print(PrintDeskTests.report))
            }
            #expect(first.1 == .printed(job: 1, submissions: 1))
            try world.apply(.fault("mig.busy", .once))
            try world.run("scpms delete-registration \(first.0.id)")
            let second = try world.perform("start again and print") { () -> (DeviceRegistration.Outcome, PrintDesk.Outcome) in
                (try await registration.ensureRegistered(storedId: first.0.id), await desk.print(PrintDeskTests.report))
            }
            #expect(second.0 == .reregistered(id: second.0.id, forgotten: first.0.id))
            // MiG answered the second Print-Job busy once; the client tried again, and the desk saw one submission.
            #expect(second.1 == .printed(job: 2, submissions: 1))
            #expect(world.events.filter { $0.name == "fault-fired" && $0["point"] == "mig.busy" }.count == 1)
        }
    }

    /// 50 seeds, each with its own latencies, 503s, and an administrator's delete at its own moment: the app always
    /// ends registered under an id SCPms issued and has not deleted.
    @Test func swarmOver50Seeds() async {
        await swarm(seeds: 1...50) { world in
            // Eight attempts: with a 503 one time in four, all of them fail for one call in 65,536.
            var policy = DeviceRegistration.Policy()
            policy.attempts = 8
            let registration = try Self.registration(in: world, policy: policy)
            try world.apply(.link(from: "phone", to: "scpms", latency: .uniform(.milliseconds(5), .milliseconds(300))))
            try world.apply(.fault("scpms.unavailable", .chance(0.25)))
            let first = try world.perform("register") { try await registration.ensureRegistered(storedId: nil) }
            try world.advance(by: .milliseconds(Int64(world.seed % 10) * 100))
            if world.seed % 2 == 0 { try world.run("scpms delete-registration \(first.id)") }
            let second = try world.perform("start again") { try await registration.ensureRegistered(storedId: first.id) }
            let issued = Self.registered(world)
            let deleted = world.events.filter { $0.name == "registration-deleted" && $0["found"] == "true" }.compactMap { $0["id"] }
            world.check(issued.contains(second.id), "the app keeps \(second.id), which SCPms never issued (\(issued))")
            world.check(!deleted.contains(second.id), "the app keeps \(second.id), which was deleted")
            world.check(
                (second == .existing(id: first.id)) == deleted.isEmpty,
                "deleted \(deleted), and the second start found \(second)")
        }
    }
}
