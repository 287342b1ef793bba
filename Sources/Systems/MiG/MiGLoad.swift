import Foundation
import MiGClient
import SystemKit
import Wire

/// MiG's share of `workbench bench load`: Print-Jobs through the shipped client.
extension LoadBenchPart {
    static let mig = LoadBenchPart(
        operations: [
            LoadOperation(
                "mig-print-job",
                "MiGClient (no retries) prints a 2 KB PDF to MiG's plain ipp:// port as demo:demo-password: "
                    + "one POST /ipp/print on a new connection; HTTP 200, IPP successful-ok and a job-id.")
        ],
        serveOptions: { clients in
            [
                LoadServeOption(
                    option: "mig.ppm", value: "100000",
                    why: "the simulated printer at its top speed, so that it keeps up with the clients: at serve's 60 pages per "
                        + "minute the queue would grow by every job the clients send"),
                LoadServeOption(
                    option: "mig.max-jobs", value: "\(max(500, 2 * clients))",
                    why: "twice the clients (at least serve's 500): each client may have one job uploading and one printing, and "
                        + "MiG, like cupsd at its MaxJobs, refuses a job while all it keeps are active; beyond that it forgets the "
                        + "oldest finished ones, so its memory stays flat"),
            ]
        },
        connect: { announced in
            guard let url = announced.url("mig", scheme: "ipp"), URLComponents(string: url)?.user != nil else {
                throw WorkbenchError("serve announced no ipp://USER:PASSWORD@… URL for mig")
            }
            // No retries: a busy printer or a dropped connection is an error here, not a slower job.
            return { index, node in try MiGLoadSession(index: index, client: MiGClient(configuration: .init(url: url, retry: .none), node: node)) }
        })
}

struct MiGLoadSession: LoadSession {
    let index: Int
    let client: MiGClient

    /// A small but real PDF: header, one empty page, trailer — what MiG's sniffing and page count see as a PDF.
    static let document: [UInt8] = {
        var text =
            "%PDF-1.4\n1 0 obj << /Type /Catalog /Pages 2 0 R >> endobj\n"
            + "2 0 obj << /Type /Pages /Kids [3 0 R] /Count 1 >> endobj\n"
            + "3 0 obj << /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] >> endobj\n"
        // Padding in a comment, to a 2 KB document.
        while text.utf8.count < 2000 { text += "% workbench bench load padding line to make the document a couple of kilobytes\n" }
        return Array((text + "trailer << /Root 1 0 R >>\n%%EOF\n").utf8)
    }()

    func perform(_ operation: String) async throws {
        let job = try await client.print(.bytes(Self.document, name: "load-\(index).pdf", format: "application/pdf"))
        guard job.status == .successfulOK else { throw WorkbenchError("Print-Job answered \(job.status), expected successful-ok") }
        guard job.id > 0 else { throw WorkbenchError("Print-Job answered job-id \(job.id)") }
    }
}
