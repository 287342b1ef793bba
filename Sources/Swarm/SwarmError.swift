/// Why the swarm cannot use an input: what was wrong and what was expected, ready to print.
public struct SwarmError: Error, CustomStringConvertible, Sendable {
    /// What kind of input was wrong; a command line tells a bad option from an unusable file by it.
    public struct Kind: Equatable, Sendable {
        private enum Base { case argument, resultFile, shrinking }
        private let base: Base

        /// A seed range, a shard, or results that cannot be merged: the caller asked for something impossible.
        public static let argument = Kind(base: .argument)
        /// A file that is no swarm result.
        public static let resultFile = Kind(base: .resultFile)
        /// A shrunk scenario that does not parse or does not fail as the seed did.
        public static let shrinking = Kind(base: .shrinking)
    }

    public let kind: Kind
    public let description: String

    init(_ kind: Kind, _ description: String) {
        self.kind = kind
        self.description = description
    }
}
