import Foundation
import Logging
import TestSupport
import XCTest

@testable import ArchiveServer

/// Keeps every event logged, for tests that read the access lines.
final class CapturedLog: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [(message: String, metadata: [String: String])] = []

    var handler: any LogHandler { Handler(log: self) }

    func lines(containing text: String) -> [[String: String]] {
        lock.withLock { events.filter { $0.message.contains(text) }.map(\.metadata) }
    }

    private struct Handler: LogHandler {
        let log: CapturedLog
        var metadata: Logger.Metadata = [:]
        var logLevel: Logger.Level = .info
        subscript(metadataKey key: String) -> Logger.Metadata.Value? {
            get { metadata[key] }
            set { metadata[key] = newValue }
        }
        func log(event: LogEvent) {
            let fields = (event.metadata ?? [:]).mapValues { $0.description }
            log.lock.withLock { log.events.append((event.message.description, fields)) }
        }
    }
}
