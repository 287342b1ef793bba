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

extension PlantedBug {
    /// The Ivanti client looks a certificate request's credential up by serial number alone: any app that knows
    /// the serial gets another app's certificate.
    static let ivantiCredentialBySerial = PlantedBug("ivanti.credential-by-serial")
}

extension IvantiClient.CredentialLookup {
    /// The lookup of an Ivanti client on `node`: the asking app's own credential, but by serial number alone when
    /// that bug is planted there.
    static func planted(on node: Node) -> Self {
        guard node.planted(.ivantiCredentialBySerial) else { return .askersOwn }
        return Self { serial, asker, client in try client.credentials().first { $0.serialNumber == serial }?.owner ?? asker }
    }
}
