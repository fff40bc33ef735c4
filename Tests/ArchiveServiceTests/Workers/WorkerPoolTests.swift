import ArchiveCodec
import Foundation
import Logging
import TestSupport
import XCTest

@testable import ArchiveServer

final class WorkerPoolTests: XCTestCase {
    func testThreadsGetTheConfiguredStackSize() throws {
        for requested in [StackBudget.minimumStackSize, 1 << 20, 3 << 20 + 123] {
            let pool = try WorkerPool(threadCount: 1, stackSize: requested, queueLimit: 1)
            let measured = ConcurrentResults()
            let done = DispatchSemaphore(value: 0)
            XCTAssertTrue(
                pool.submit {
                    measured.append(currentThreadStackSize() ?? 0)
                    done.signal()
                })
            XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
            pool.shutdown()
            let size = try XCTUnwrap(measured.values.first)
            XCTAssertGreaterThanOrEqual(size, requested)
            XCTAssertLessThanOrEqual(size, 4 * pool.stackSize + 4096)
        }
    }

    /// Each worker's thread is named for `top -H`, gdb and perf: `archive-work-1` on.
    func testWorkersAreNamed() throws {
        let pool = try WorkerPool(threadCount: 2, stackSize: 256 << 10, queueLimit: 0)
        defer { pool.shutdown() }
        let names = ConcurrentResults()
        let gate = Gate()
        let started = DispatchSemaphore(value: 0)
        for _ in 0..<2 {
            XCTAssertTrue(
                pool.submit {
                    let comm = (try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8)) ?? ""
                    names.append(comm == "archive-work-1\n" ? 1 : comm == "archive-work-2\n" ? 2 : 0)
                    started.signal()
                    gate.wait()
                })
        }
        for _ in 0..<2 { XCTAssertEqual(started.wait(timeout: .now() + 10), .success) }
        gate.openGate()
        XCTAssertEqual(names.values.sorted(), [1, 2])
        XCTAssertEqual(WorkerPool.threadName(9), "archive-work-10")
    }

    func testBoundedQueueRejectsWhenFullAndRunsInFIFOOrder() throws {
        let gate = Gate()
        let pool = try WorkerPool(threadCount: 1, stackSize: 256 << 10, queueLimit: 3)
        let order = ConcurrentResults()
        XCTAssertTrue(pool.submit { gate.wait() })
        XCTAssertTrue(gate.waitForArrivals(1))
        for index in 0..<3 {
            XCTAssertTrue(pool.submit { order.append(index) })
        }
        XCTAssertFalse(pool.submit { order.append(99) })
        XCTAssertEqual(pool.snapshot, WorkerPool.Snapshot(threads: 1, busy: 1, queued: 3, queueLimit: 3))
        XCTAssertFalse(pool.snapshot.hasCapacity)
        gate.openGate()
        pool.shutdown()
        XCTAssertEqual(order.values, [0, 1, 2])
        XCTAssertFalse(pool.submit {}, "a stopped pool must refuse work")
    }

    func testShutdownCanDiscardWaitingJobs() throws {
        let gate = Gate()
        let pool = try WorkerPool(threadCount: 1, stackSize: 256 << 10, queueLimit: 4)
        let ran = ConcurrentResults()
        XCTAssertTrue(
            pool.submit {
                gate.wait()
                ran.append(0)
            })
        XCTAssertTrue(gate.waitForArrivals(1))
        XCTAssertTrue(pool.submit { ran.append(1) })
        let stopper = Background { pool.shutdown(discardPending: true) }
        usleep(50_000)
        gate.openGate()
        XCTAssertNotNil(stopper.wait())
        XCTAssertEqual(ran.values, [0])
    }
}
