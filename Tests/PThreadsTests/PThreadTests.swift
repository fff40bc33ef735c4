import Foundation
import PThreads
import TestSupport
import XCTest

final class PThreadTests: XCTestCase {
    /// What a thread saw, written by it and read after `join()`.
    private final class Seen: @unchecked Sendable {
        var stackSize: Int?
        var ran = false
        var name: String?
    }

    /// The thread's name as the kernel shows it (`/proc/thread-self/comm`), asked from the thread.
    private static func currentThreadName() -> String? {
        guard let text = try? String(contentsOfFile: "/proc/thread-self/comm", encoding: .utf8) else { return nil }
        return text.trimmingCharacters(in: .newlines)
    }

    /// A thread carries the name it was given, cut to the bytes Linux keeps.
    func testAThreadCarriesItsName() throws {
        for (asked, shown) in [("archive-loop-1", "archive-loop-1"), ("a-name-longer-than-fifteen", "a-name-longer-t")] {
            let seen = Seen()
            let thread = try PThread.start(name: asked) { seen.name = Self.currentThreadName() }
            thread.join()
            XCTAssertEqual(seen.name, shown)
        }
        XCTAssertEqual(PThread.maximumNameBytes, 15)
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
