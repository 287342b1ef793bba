/// Explicit bounds on everything a credential URL carries, checked on both sides of the bus before any
/// parsing or cryptography, so an oversized or runaway payload costs nothing.
public enum CredentialLimits {
    /// One certificate per tag.
    public static let maxCertificates = CredentialTag.allCases.count
    /// A DER certificate; an RSA 4096 certificate with extensions is about 1.5 KiB.
    public static let maxCertificateBytes = 16 * 1024
    /// A PKCS#8 DER private key; RSA 4096 is about 2.4 KiB.
    public static let maxPrivateKeyBytes = 16 * 1024
    /// Name, serial number, brand and scheme, in UTF-8 bytes.
    public static let maxTextBytes = 256
    /// A whole URL on the bus (iOS accepts far more; this bounds the work of one message).
    public static let maxURLBytes = 160 * 1024
    /// The furthest a credential's expiration date may lie in the future.
    public static let maxLifetimeSeconds: Int64 = 20 * 366 * 24 * 3600
}
