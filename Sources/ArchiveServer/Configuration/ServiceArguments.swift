/// The settings given on the command line, each nil when not given.
///
/// `archive-service` declares the flags (with their help) and conforms; `ServiceSettings` reads
/// a setting from here first, then from its environment variable, then takes the default.
/// Byte sizes stay text here ("512K", "64M"): `ServerConfiguration.parseByteSize` reads them,
/// and an error names the flag that gave the text.
public protocol ServiceArguments {
    var host: String? { get }
    var port: Int? { get }
    var workers: Int? { get }
    var eventLoops: Int? { get }
    var stackSize: String? { get }
    var queueLimit: Int? { get }
    var maxBodySize: String? { get }
    var maxParts: Int? { get }
    var maxPartSize: String? { get }
    var timeout: Int? { get }
    var headerTimeout: Int? { get }
    var memoryBudget: String? { get }
    var maxConnections: Int? { get }
    var drainTimeout: Int? { get }
    /// Seconds, as text ("30", "2.5").
    var conversionTimeout: String? { get }
    var workerNice: Int? { get }
    var logLevel: String? { get }
    var logFormat: String? { get }
}

extension ServiceArguments {
    public var conversionTimeout: String? { nil }
    public var workerNice: Int? { nil }
    public var maxParts: Int? { nil }
    public var maxPartSize: String? { nil }
}
