#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Environment variables, read without Foundation. A variable set to the empty string counts as
/// unset: `docker run -e PORT=` and a Kubernetes value left blank mean "the default".
public struct ProcessEnvironment: Sendable {
    private let values: [String: String]?

    /// The process's own environment, read when a variable is asked for.
    public init() { values = nil }

    /// Fixed values instead of the process's (for tests and embedders).
    public init(_ values: [String: String]) { self.values = values }

    public subscript(name: String) -> String? {
        let text: String?
        if let values {
            text = values[name]
        } else {
            text = getenv(name).map { String(cString: $0) }
        }
        guard let text, !text.isEmpty else { return nil }
        return text
    }
}
