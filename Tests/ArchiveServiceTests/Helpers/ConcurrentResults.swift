import ArchiveCodec
import ArchiveServer
import TestSupport
import XCTest

final class ConcurrentResults: @unchecked Sendable {
    private let lock = NSLock()
    private var storage: [Int] = []
    func append(_ value: Int) {
        lock.lock()
        storage.append(value)
        lock.unlock()
    }
    var values: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return storage
    }
}
