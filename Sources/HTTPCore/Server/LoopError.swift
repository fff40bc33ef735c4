/// Why a loop could not be made or started (libevent refused an object, an address could not
/// be bound); the message says which, for the operator.
package struct LoopError: Error, Sendable, CustomStringConvertible {
    package let message: String
    /// Set when the address to listen on is taken by another process, which the application may
    /// word in its own terms (which process, which option to change).
    package let addressInUse: (host: String, port: Int)?

    package init(_ message: String, addressInUse: (host: String, port: Int)? = nil) {
        self.message = message
        self.addressInUse = addressInUse
    }

    package var description: String { message }
}
