import Testing

@testable import IMSSystem
@testable import Workbench

/// The benches read their peers' output; a peer's new output format must not turn into wrong ratios.
@Suite struct BenchPeerOutputTests {
    @Test func openSSL30SpeedLineIsReadByItsHeader() throws {
        let text = """
                              sign    verify    sign/s verify/s
            rsa 2048 bits 0.000252s 0.000015s   3970.2  67600.1
            """
        #expect(try OpenSSLSpeed.parse(text) == OpenSSLSpeed.Result(sign: 3970.2, verify: 67600.1))
    }

    /// OpenSSL 3.2+: a key-encapsulation table with rsa2048 rows comes first, then six columns for signatures.
    @Test func openSSL32SpeedTablesAreReadByColumnName() throws {
        let text = """
                                           keygen    encaps    decaps keygens/s  encaps/s  decaps/s
                                rsa2048 0.044311s 0.000019s 0.000515s      22.6   53801.4    1942.8
                                           keygen     signs    verify keygens/s    sign/s  verify/s
                                rsa2048 0.044311s 0.000520s 0.000017s      22.6    1923.1   58823.5
            """
        #expect(try OpenSSLSpeed.parse(text) == OpenSSLSpeed.Result(sign: 1923.1, verify: 58823.5))
    }

    @Test func speedOutputWithoutAnRSALineIsAnError() {
        #expect(throws: (any Error).self) { try OpenSSLSpeed.parse("Doing 2048 bits private rsa sign ops for 1s\n") }
        // A row that does not fit its header is refused, not half read.
        #expect(throws: (any Error).self) { try OpenSSLSpeed.parse("   sign verify sign/s verify/s\nrsa 2048 bits 0.1s 3970.2\n") }
    }
}
