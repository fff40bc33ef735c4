import PThreads
import TestSupport
import XCTest

final class PThreadTests: XCTestCase {
    /// What a thread saw, written by it and read after `join()`.
    private final class Seen: @unchecked Sendable {
        var stackSize: Int?
        var ran = false
    }

    func testAThreadGetsTheStackItAskedFor() throws {
        for requested in [64 << 10, 1 << 20, 3 << 20 + 123, 64 << 20] {
            let seen = Seen()
            let thread = try PThread.start(stackSize: requested) { seen.stackSize = currentThreadStackSize() }
            thread.join()
            let size = try XCTUnwrap(seen.stackSize, "pthread_getattr_np failed")
            XCTAssertGreaterThanOrEqual(size, PThread.stackSize(roundingUp: requested), "asked for \(requested)")
            XCTAssertLessThanOrEqual(size, 4 * PThread.stackSize(roundingUp: requested) + 4096, "asked for \(requested)")
        }
    }

    func testStackSizesRoundUpToWholePages() {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        XCTAssertEqual(PThread.stackSize(roundingUp: 1), page)
        XCTAssertEqual(PThread.stackSize(roundingUp: page), page)
        XCTAssertEqual(PThread.stackSize(roundingUp: page + 1), 2 * page)
        XCTAssertEqual(PThread.stackSize(roundingUp: 3 << 20 + 123) % page, 0)
    }

    func testJoinWaitsForTheBody() throws {
        let seen = Seen()
        let thread = try PThread.start {
            usleep(50_000)
            seen.ran = true
        }
        thread.join()
        XCTAssertTrue(seen.ran)
    }

    func testAStackTooSmallForTheSystemIsAnErrorNotACrash() {
        // Below PTHREAD_STACK_MIN (16 KiB on glibc) pthread_attr_setstacksize answers EINVAL.
        XCTAssertThrowsError(try PThread.start(stackSize: 4096) { XCTFail("must not run") }) { error in
            let failure = error as? PThreadError
            XCTAssertEqual(failure?.code, EINVAL)
            XCTAssertEqual(failure?.call, "pthread_attr_setstacksize(4096)")
            XCTAssertTrue("\(error)".contains("Invalid argument"), "\(error)")
        }
    }
}
