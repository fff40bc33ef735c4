/// A setting the service cannot start with; the message names the setting, the value and what is allowed.
public struct ConfigurationError: Error, Sendable, CustomStringConvertible {
    public let message: String
    public var description: String { message }
}
