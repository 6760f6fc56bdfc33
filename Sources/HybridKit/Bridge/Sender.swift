extension BridgeEngine {
    /// Who sent a message: what the engine vouches for when it can, else what the page claims.
    struct Sender: Sendable {
        let origin: String
        let isMainFrame: Bool
        let verified: Bool

        init(_ inbound: InboundMessage, frame: FrameInfo?) {
            if let frame {
                // The security origin, not the URL: a sandboxed frame of the app's own URL is `null`.
                origin = frame.securityOrigin
                isMainFrame = frame.isMainFrame
                verified = true
            } else {
                origin = inbound.origin
                isMainFrame = inbound.frame == .main
                verified = false
            }
        }
    }
}
