import Scenario

/// The MiG print gateway: MiG and the TLS proxy in front of it, the phone's `mig` print client, and the benches
/// of the IPP core and of MiG itself.
extension WorkbenchSystem {
    static let mig = WorkbenchSystem(
        name: "MiG",
        actorKinds: [.mig, .migProxy],
        directives: [.mig],
        liveOptions: ["mig": ["tls-port": "8050", "plain-port": "8631"],
                      "mig-proxy": ["port": "8443", "upstream": "mig:8631"]],
        coreBenches: [IPPBench.self],
        actorBenches: [MiGBench.self]
    )
}
