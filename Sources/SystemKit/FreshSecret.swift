import Wire

extension SecretRandom {
    /// `count` bytes from this source as lower-case hex: a live deployment's fresh token or shared secret.
    package func hex(_ count: Int = 32) -> String {
        bytes(count).map { byte in (byte < 16 ? "0" : "") + String(byte, radix: 16) }.joined()
    }
}
