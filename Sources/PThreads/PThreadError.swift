#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A pthread call that failed where failing is possible and recoverable: creating a thread
/// (the system is out of threads or memory) or setting a stack size it refuses.
public struct PThreadError: Error, Sendable, CustomStringConvertible {
    /// The call, with the argument that matters, such as `pthread_attr_setstacksize(65536)`.
    public let call: String
    /// The error number the call returned.
    public let code: Int32

    public init(call: String, code: Int32) {
        self.call = call
        self.code = code
    }

    public var description: String {
        "\(call) failed: \(String(cString: strerror(code))) (\(code))"
    }
}
