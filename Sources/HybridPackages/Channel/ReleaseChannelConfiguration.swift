/// What an app tells the updater about the channel it follows.
public struct ReleaseChannelConfiguration: Sendable, Hashable {
    /// e.g. `production`, `beta`; same character rules as package ids.
    public var channel: String
    /// The public half of the release key that signs indexes (not a package key: see docs/release-channel.md).
    public var releaseKey: PackageVerificationKey
    /// This app's own version, compared with each release's `minimumHostVersion`.
    public var hostVersion: SemanticVersion

    public init(channel: String = "production", releaseKey: PackageVerificationKey, hostVersion: SemanticVersion) {
        self.channel = channel
        self.releaseKey = releaseKey
        self.hostVersion = hostVersion
    }
}
