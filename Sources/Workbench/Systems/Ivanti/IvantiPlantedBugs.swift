import IvantiClient
import Swarm
import Wire

/// The bug `workbench swarm --planted` can give the Ivanti client, caught by an invariant.
extension PlantedBugEntry {
    static let ivanti: [PlantedBugEntry] = [
        PlantedBugEntry(
            .ivantiCredentialBySerial, system: "Ivanti",
            summary: "the vault looks a certificate request up by serial number alone: another app gets the credential")
    ]
}
