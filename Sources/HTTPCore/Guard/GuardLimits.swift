/// The limits a connection guard keeps: the configured ones, in the units the configuration
/// gives them, and the fixed ones.
package struct GuardLimits: Sendable, Equatable {
    /// Seconds a connection may wait idle between requests, and the base allowance of a body or
    /// a reply (`GuardMachine.transferSeconds`).
    package var timeout: Int
    /// Seconds the whole request head (request line and headers) may take to arrive.
    package var headerTimeout: Int
    /// Largest body admitted, announced or received.
    package var maxBodySize: Int

    /// Longest request head accepted (request line and headers); longer ones get 431.
    package static let maximumHeadSize = 32 << 10
    /// Bytes read from the socket but not yet let through; reading stops there.
    package static let heldBytesLimit = maximumHeadSize + (16 << 10)
    /// The slowest a body or a reply may move once started, in bytes per second: the deadline
    /// for a body or reply of n bytes is the timeout plus n at this rate.
    package static let minimumTransferRate = 256 << 10
    /// How long a connection waiting for its next request counts as just opened: it has had no
    /// time to send (a probe that has just connected), so it makes room last.
    package static let freshIdleNanos: UInt64 = 1_000_000_000

    package init(timeout: Int, headerTimeout: Int, maxBodySize: Int) {
        self.timeout = timeout
        self.headerTimeout = headerTimeout
        self.maxBodySize = maxBodySize
    }
}
