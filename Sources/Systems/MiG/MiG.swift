import MiGServer
import Reports
import Scenario
import Swarm
import SystemKit
import Wire

/// The MiG print gateway: MiG and the TLS proxy in front of it, the phone's `mig` print client, and the benches
/// of the IPP core and of MiG itself.
extension WorkbenchSystem {
    package static let mig = WorkbenchSystem(
        name: "MiG",
        actorKinds: [.mig, .migProxy],
        directives: [.mig],
        // Served, what a client was told succeeded must outlive a power loss, as the README promises: documents and
        // commits are fsynced before the 200 (`--set mig.sync-to-disk=false` trades that for speed).
        liveOptions: [
            "mig": ["tls-port": "8050", "plain-port": "8631", "sync-to-disk": "true"],
            "mig-proxy": ["port": "8443", "upstream": "mig:8631"],
        ],
        liveTopologies: [
            LiveTopology(
                name: "mig-behind-proxy",
                summary: "original 000's nginx deployment as written: MiG plain on 8050 (no IPPS), mig-proxy on 8443 forwarding to it "
                    + "(a real nginx's 'proxy_pass http://127.0.0.1:8050;' works unchanged)",
                options: ["mig": ["tls-port": "none", "plain-port": "8050"], "mig-proxy": ["upstream": "mig:8050"]])
        ],
        // MiG believes its proxy's forwarded certificates only with a secret they share: a fresh one per
        // deployment from the system's CSPRNG, unless the user gave one (to either side).
        completeLiveOptions: { options in
            let secret = options["mig"]?["proxy-secret"] ?? options["mig-proxy"]?["secret"] ?? SecretRandom.system.hex()
            options["mig", default: [:]]["proxy-secret"] = options["mig"]?["proxy-secret"] ?? secret
            options["mig-proxy", default: [:]]["secret"] = options["mig-proxy"]?["secret"] ?? secret
        },
        invariants: Invariant.migInvariants,
        reachPoints: ReachPoint.migReachPoints,
        traceEvents: WorkbenchSystem.migTraceEvents,
        coreBenches: [IPPBench.self],
        actorBenches: [MiGBench.self],
        loadBench: .mig,
        fuzzSamples: FuzzSamples(
            addresses: ["mig:631"], urls: ["ipp://mig:631/ipp/print"], nodes: ["mig"],
            hostile: [
                "mig:0", "mig:-1", "ppm=3000000000", "ppm=0", "upstream=mig:99999", "upstream=mig", "tls-port=-1",
                "bytes-per-page=0", "sync-to-disk=maybe", "max-jobs=-1",
            ]),
        timelineEvents: WorkbenchSystem.migTimelineEvents,
        plantedBugs: PlantedBugEntry.mig,
        demoAccounts: MiGServer.Configuration().accounts.first.map { ["mig": DemoAccount(user: $0.user, password: $0.password)] } ?? [:]
    )
}
