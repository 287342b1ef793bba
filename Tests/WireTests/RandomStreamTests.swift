import Testing
import Wire

/// The seeded streams a run is reproduced from: the same seed must give the same draws in every build, so the
/// first draws are pinned to values computed independently (a Python transcription of FNV-1a, SplitMix64 and
/// xoshiro256**, checked against the published SplitMix64 and FNV-1a test vectors).
@Suite struct RandomStreamTests {
    @Test func nameHashIsFNV1a64() {
        #expect(RandomStream.fnv1a("") == 0xcbf2_9ce4_8422_2325)
        #expect(RandomStream.fnv1a("a") == 0xaf63_dc4c_8601_ec8c)
        #expect(RandomStream.fnv1a("phone") == 0x31fc_9c6b_de86_5d6f)
    }

    @Test func theFirstDrawsArePinned() {
        let phone = RandomStream(seed: 42, name: "phone")
        #expect([phone.next(), phone.next(), phone.next()] == [0x9f29_8471_aefa_8dcf, 0xd0f6_85a5_5b22_206d, 0x03fa_c1f7_a776_ac39])
        #expect(phone.unit() == 0.49715185127273054)
        let empty = RandomStream(seed: 0, name: "")
        #expect([empty.next(), empty.next()] == [0x2138_2ef0_92ed_7068, 0x5b54_c052_757a_df62])
        // Bytes are the 64-bit draws in little-endian order, cut to length.
        #expect(RandomStream(seed: 7, name: "bytes").bytes(12) == [0xc9, 0xd9, 0x6e, 0x14, 0x8f, 0x56, 0x54, 0xbf, 0x2d, 0xd3, 0x9b, 0xa1])
    }

    @Test func streamsDependOnSeedAndNameOnly() {
        func draws(_ stream: RandomStream) -> [UInt64] { (0..<8).map { _ in stream.next() } }
        #expect(draws(RandomStream(seed: 1, name: "mig")) == draws(RandomStream(seed: 1, name: "mig")))
        #expect(draws(RandomStream(seed: 1, name: "mig")) != draws(RandomStream(seed: 2, name: "mig")))
        #expect(draws(RandomStream(seed: 1, name: "mig")) != draws(RandomStream(seed: 1, name: "phone")))
    }

    @Test func aSharedStreamIsOneSequence() {
        // Every user of a node's stream draws from the same sequence: a copy of the reference does not restart it.
        let stream = RandomStream(seed: 9, name: "shared")
        let reference = RandomStream(seed: 9, name: "shared")
        let alias = stream
        #expect([stream.next(), alias.next(), stream.next()] == [reference.next(), reference.next(), reference.next()])
    }

    @Test func integersStayInTheirRangeAndCoverIt() {
        let stream = RandomStream(seed: 3, name: "dice")
        let rolls = (0..<600).map { _ in stream.int(in: 1...6) }
        #expect(Set(rolls) == Set(1...6))
        #expect(stream.int(in: 5...5) == 5)
        let wide = (0..<100).map { _ in stream.int(in: Int.min...Int.max) }
        #expect(Set(wide).count == 100)
    }

    @Test func unitsLieInZeroToOneAndSpreadOut() {
        let stream = RandomStream(seed: 4, name: "unit")
        let values = (0..<2_000).map { _ in stream.unit() }
        #expect(values.allSatisfy { $0 >= 0 && $0 < 1 })
        let mean = values.reduce(0, +) / Double(values.count)
        #expect(abs(mean - 0.5) < 0.05)
        #expect(values.filter { $0 < 0.1 }.count > 100 && values.filter { $0 >= 0.9 }.count > 100)
    }

    @Test func bytesHaveTheRequestedLength() {
        let stream = RandomStream(seed: 5, name: "bytes")
        for count in [0, 1, 7, 8, 9, 33] { #expect(stream.bytes(count).count == count) }
    }

    @Test func uuidsAreVersion4InUpperCase() {
        let stream = RandomStream(seed: 6, name: "uuid")
        let ids = (0..<50).map { _ in stream.uuid() }
        #expect(Set(ids).count == 50)
        for id in ids {
            let groups = id.split(separator: "-", omittingEmptySubsequences: false)
            #expect(groups.map(\.count) == [8, 4, 4, 4, 12], "\(id)")
            #expect(id.allSatisfy { "0123456789ABCDEF-".contains($0) }, "\(id)")
            #expect(groups[2].first == "4", "version 4: \(id)")
            #expect("89AB".contains(groups[3].first!), "RFC 4122 variant: \(id)")
        }
        #expect(RandomStream(seed: 6, name: "uuid").uuid() == ids[0])
    }
}
