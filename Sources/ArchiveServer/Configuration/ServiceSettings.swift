import ASCIIText
import HTTPCore
import Logging

/// What one start of `archive-service` runs with: the server's configuration and how it logs.
///
/// Every setting comes from its flag, else its environment variable (for containers), else the
/// default: a flag wins over its variable, and a variable over the default. The variable of a
/// setting is its flag in capitals (`--max-body-size`, `MAX_BODY_SIZE`). The configuration is
/// validated (`ServerConfiguration.validate()`) before it is returned.
public struct ServiceSettings: Sendable {
    public var configuration: ServerConfiguration
    public var logLevel: Logger.Level
    public var logFormat: LineLogHandler.LogFormat

    /// Throws, naming the flag or variable and the value, the first setting that cannot be read
    /// or is not allowed.
    public init(arguments: some ServiceArguments, environment: ProcessEnvironment = ProcessEnvironment()) throws(ConfigurationError) {
        let read = SettingReader(environment: environment)
        var config = ServerConfiguration()
        if let value = arguments.host ?? environment["HOST"] { config.host = value }
        config.port = try read.integer(arguments.port, "PORT") ?? config.port
        config.workers = try read.integer(arguments.workers, "WORKERS") ?? config.workers
        config.eventLoops = try read.integer(arguments.eventLoops, "EVENT_LOOPS") ?? config.eventLoops
        config.queueLimit = try read.integer(arguments.queueLimit, "QUEUE_LIMIT") ?? config.queueLimit
        config.timeout = try read.integer(arguments.timeout, "TIMEOUT") ?? config.timeout
        config.headerTimeout = try read.integer(arguments.headerTimeout, "HEADER_TIMEOUT") ?? config.headerTimeout
        config.memoryBudget = try read.byteSize(arguments.memoryBudget, "MEMORY_BUDGET", option: "--memory-budget") ?? config.memoryBudget
        config.maxConnections = try read.integer(arguments.maxConnections, "MAX_CONNECTIONS") ?? config.maxConnections
        config.drainTimeout = try read.integer(arguments.drainTimeout, "DRAIN_TIMEOUT") ?? config.drainTimeout
        config.conversionTimeout =
            try read.seconds(arguments.conversionTimeout, "CONVERSION_TIMEOUT", option: "--conversion-timeout") ?? config.conversionTimeout
        config.workerNice = try read.integer(arguments.workerNice, "WORKER_NICE") ?? config.workerNice
        config.stackSize = try read.byteSize(arguments.stackSize, "STACK_SIZE", option: "--stack-size") ?? config.stackSize
        config.maxBodySize = try read.byteSize(arguments.maxBodySize, "MAX_BODY_SIZE", option: "--max-body-size") ?? config.maxBodySize
        config.maxParts = try read.integer(arguments.maxParts, "MAX_PARTS") ?? config.maxParts
        config.maxPartSize = try read.byteSize(arguments.maxPartSize, "MAX_PART_SIZE", option: "--max-part-size") ?? config.maxPartSize

        let levelText = (arguments.logLevel ?? environment["LOG_LEVEL"] ?? "info").asciiLowercased()
        guard let level = Logger.Level(rawValue: levelText) else {
            throw ConfigurationError(message: "log level must be one of trace, debug, info, notice, warning, error, critical; got \(levelText)")
        }
        let formatText = (arguments.logFormat ?? environment["LOG_FORMAT"] ?? "logfmt").asciiLowercased()
        guard let format = LineLogHandler.LogFormat(rawValue: formatText) else {
            throw ConfigurationError(message: "log format must be logfmt or json; got \(formatText)")
        }
        try config.validate()
        configuration = config
        logLevel = level
        logFormat = format
    }
}

/// Reads one setting from its flag or its variable; the error names where the text came from.
private struct SettingReader {
    let environment: ProcessEnvironment

    /// The flag, else the variable read as an integer, else nil.
    func integer(_ flag: Int?, _ variable: String) throws(ConfigurationError) -> Int? {
        if let flag { return flag }
        guard let text = environment[variable] else { return nil }
        guard let parsed = Int(text.trimmingASCIIWhitespace()) else {
            throw ConfigurationError(message: "\(variable) must be an integer, got \"\(text)\"")
        }
        return parsed
    }

    /// The flag, else the variable, read as seconds (digits with an optional fraction: "30",
    /// "2.5"), else nil.
    func seconds(_ flag: String?, _ variable: String, option: String) throws(ConfigurationError) -> Double? {
        let source = flag.map { (option, $0) } ?? environment[variable].map { (variable, $0) }
        guard let (name, text) = source else { return nil }
        let trimmed = text.trimmingASCIIWhitespace()
        let parts = trimmed.split(separator: ".", maxSplits: 1, omittingEmptySubsequences: false)
        guard !trimmed.isEmpty, parts.count <= 2, parts.allSatisfy({ !$0.isEmpty && $0.allSatisfy { $0.isASCII && $0.isNumber } }),
            let value = Double(trimmed)
        else {
            throw ConfigurationError(message: "\(name) must be a number of seconds such as 30 or 2.5, got \"\(text)\"")
        }
        return value
    }

    /// The flag, else the variable, read as a byte count (`ServerConfiguration.parseByteSize`), else nil.
    func byteSize(_ flag: String?, _ variable: String, option: String) throws(ConfigurationError) -> Int? {
        let source = flag.map { (option, $0) } ?? environment[variable].map { (variable, $0) }
        guard let (name, text) = source else { return nil }
        guard let parsed = ServerConfiguration.parseByteSize(text) else {
            throw ConfigurationError(message: "\(name) must be a byte count such as 524288, 512K or 64M, got \"\(text)\"")
        }
        return parsed
    }
}
