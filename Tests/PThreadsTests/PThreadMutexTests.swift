import PThreads
import XCTest

final class PThreadMutexTests: XCTestCase {
    /// A counter that only the mutex guards.
    private final class Counter: @unchecked Sendable {
        let mutex = PThreadMutex()
        var value = 0
    }

    func testIncrementsFromManyThreadsAreNeverLost() throws {
        let counter = Counter()
        let perThread = 100_000
        let threads = try (0..<4).map { _ in
            try PThread.start {
                for _ in 0..<perThread { counter.mutex.withLock { counter.value += 1 } }
            }
        }
        for thread in threads { thread.join() }
        XCTAssertEqual(counter.value, 4 * perThread)
    }

    func testWithLockReleasesTheLockWhenTheBodyThrows() {
        struct Thrown: Error {}
        let mutex = PThreadMutex()
        XCTAssertThrowsError(try mutex.withLock { throw Thrown() })
        // Locked still, this would deadlock (the mutex is not recursive) instead of returning.
        XCTAssertEqual(mutex.withLock { 7 }, 7)
    }
}
