import IMSVerifier
import Swarm
import Wire

/// The bug `workbench swarm --planted` can give IMS, caught by an invariant.
extension PlantedBugEntry {
    static let ims: [PlantedBugEntry] = [
        PlantedBugEntry(
            .imsNotBeforeIgnored, system: "IMS",
            summary: "IMS checks a token's exp but not its nbf: a token not yet valid on IMS's clock (the phone's runs ahead) starts a session")
    ]
}
