import PThreads
import XCTest

final class PThreadConditionTests: XCTestCase {
    /// A one-slot mailbox: the state a condition variable waits on, guarded by one mutex.
    private final class Mailbox: @unchecked Sendable {
        let mutex = PThreadMutex()
        let changed = PThreadCondition()
        var letter: Int?
        var open = false
        var waiting = 0
        var total = 0
    }

    func testSignalHandsEachValueToTheWaitingThread() throws {
        let box = Mailbox()
        var sum = 0
        let consumer = try PThread.start {
            for _ in 1...1_000 {
                let value: Int = box.mutex.withLock {
                    while box.letter == nil { box.changed.wait(box.mutex) }
                    defer {
                        box.letter = nil
                        box.changed.signal()
                    }
                    return box.letter!
                }
                box.total += value  // Only this thread writes it; read after the join.
            }
        }
        for value in 1...1_000 {
            box.mutex.withLock {
                while box.letter != nil { box.changed.wait(box.mutex) }
                box.letter = value
                box.changed.signal()
            }
            sum += value
        }
        consumer.join()
        XCTAssertEqual(box.total, sum)
    }

    func testBroadcastWakesEveryWaiter() throws {
        let box = Mailbox()
        let threads = try (0..<3).map { _ in
            try PThread.start {
                box.mutex.withLock {
                    box.waiting += 1
                    box.changed.broadcast()
                    while !box.open { box.changed.wait(box.mutex) }
                }
            }
        }
        box.mutex.withLock {
            while box.waiting < 3 { box.changed.wait(box.mutex) }
            box.open = true
            box.changed.broadcast()
        }
        // Each joins only if the one broadcast woke it.
        for thread in threads { thread.join() }
        XCTAssertEqual(box.waiting, 3)
    }
}
