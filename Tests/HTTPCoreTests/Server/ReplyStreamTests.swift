import Foundation
import Logging
import XCTest

@testable import HTTPCore

/// A stream's backpressure and cancellation, with a loop that is never run: the worker's side
/// is driven on a thread, the loop's side called directly.
final class ReplyStreamTests: XCTestCase {
    private final class NoApplication: HTTPApplication {
        struct Admission: BodyAdmission {
            mutating func begin(_ head: RequestHead, announced: Int) -> AdmissionDenial? { nil }
            mutating func received(_ received: Int, upTo total: Int, of head: RequestHead?) -> AdmissionDenial? { nil }
            mutating func chunksAnnounced(_ announced: Int, of head: RequestHead) -> AdmissionDenial? { nil }
            mutating func release() {}
            mutating func takeOver() -> (any HeldResources)? { nil }
        }

        func handle(_ request: IncomingRequest, on loop: EventLoop) {}
        func makeAdmission() -> any BodyAdmission<AdmissionDenial> { Admission() }
        func answer(_ refusal: ConnectionRefusal, head: RequestHead?, requestID: String, peer: String, write: (HTTPReply) -> Void) {}
    }

    private var loop: EventLoop!

    override func setUpWithError() throws {
        let settings = LoopSettings(
            guardLimits: GuardLimits(timeout: 30, headerTimeout: 10, maxBodySize: 1 << 20), connections: ConnectionLimit(limit: 1),
            commonHeaders: [], clock: { 0 }, logger: Logger(label: "test", factory: { _ in SwiftLogNoOpLogHandler() }))
        loop = try EventLoop(index: 0, settings: settings, application: NoApplication())
    }

    override func tearDown() {
        loop.teardown()
        loop = nil
    }

    /// A stream whose request the loop never touches (its messages are never run).
    private func stream(queueLimit: Int) -> ReplyStream {
        let handle = ReplyHandle(
            request: OpaquePointer(bitPattern: 0x10)!, method: .post, requestID: "test", closeAfterReply: false, readsChunkedReplies: true)
        return ReplyStream(handle: handle, on: loop, queueLimit: queueLimit)
    }

    private func chunk(_ count: Int) -> EventBuffer {
        let buffer = EventBuffer()!
        _ = [UInt8](repeating: 0x61, count: count).withUnsafeBufferPointer { buffer.append($0) }
        return buffer
    }

    /// Runs `write` on a thread; the returned semaphore is signalled with its answer stored.
    private func writeOnThread(_ stream: ReplyStream, _ bytes: Int, answer: UnsafeMutablePointer<Bool>) -> DispatchSemaphore {
        let done = DispatchSemaphore(value: 0)
        let chunk = chunk(bytes)
        nonisolated(unsafe) let answer = answer
        Thread.detachNewThread {
            answer.pointee = stream.write(chunk, holding: nil)
            done.signal()
        }
        return done
    }

    func testAWriteWaitsWhileMoreThanTheLimitIsUnwrittenAndNotOnceItIsWritten() {
        let stream = stream(queueLimit: 100)
        XCTAssertTrue(stream.write(chunk(100), holding: nil), "up to the limit, a write returns at once")
        let answer = UnsafeMutablePointer<Bool>.allocate(capacity: 1)
        defer { answer.deallocate() }
        answer.pointee = false
        let done = writeOnThread(stream, 1, answer: answer)
        XCTAssertEqual(done.wait(timeout: .now() + 0.3), .timedOut, "101 bytes unwritten: the worker waits")
        stream.settle(60)
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success, "41 unwritten: it goes on")
        XCTAssertTrue(answer.pointee)
        XCTAssertFalse(stream.isCancelled)
    }

    func testCancellingWakesAWaitingWriteAndRefusesEveryLaterOne() {
        let stream = stream(queueLimit: 10)
        let answer = UnsafeMutablePointer<Bool>.allocate(capacity: 1)
        defer { answer.deallocate() }
        answer.pointee = true
        let done = writeOnThread(stream, 50, answer: answer)
        XCTAssertEqual(done.wait(timeout: .now() + 0.3), .timedOut)
        stream.cancel()
        XCTAssertEqual(done.wait(timeout: .now() + 10), .success)
        XCTAssertFalse(answer.pointee, "the client went away")
        XCTAssertTrue(stream.isCancelled)
        XCTAssertFalse(stream.write(chunk(1), holding: nil), "nothing more is queued")
    }
}
