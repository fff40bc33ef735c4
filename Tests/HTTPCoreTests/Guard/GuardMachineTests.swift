import HTTPCore
import XCTest

/// The connection guard's decisions, fed bytes and times directly: heads pass only whole and
/// admitted, bodies are admitted from their head and as they arrive, one request at a time, and
/// every deadline is decided without a clock.
final class GuardMachineTests: XCTestCase {
    private typealias Machine = GuardMachine<TestAdmission>
    private typealias Action = GuardAction<String>

    private static let limits = GuardLimits(timeout: 30, headerTimeout: 10, maxBodySize: 1 << 20)
    private static let second: UInt64 = 1_000_000_000

    /// A connection's input as its shell would hold it: bytes wait until a step passes or drops
    /// them.
    private struct Connection {
        var machine: Machine
        var waiting: [UInt8] = []
        /// Every byte let through to the parser, in order.
        var passed: [UInt8] = []
        /// Every action of every step, in order.
        var actions: [Action] = []

        init(admission: TestAdmission = TestAdmission(), limits: GuardLimits = GuardMachineTests.limits, now: UInt64 = 0) {
            machine = Machine(limits: limits, admission: admission, now: now)
            actions = machine.start()
        }

        /// The client sends `bytes` at `now`; returns the actions the machine decided on them.
        @discardableResult
        mutating func send(_ bytes: [UInt8], at now: UInt64 = 0) -> [Action] {
            waiting += bytes
            return run(at: now)
        }

        @discardableResult
        mutating func send(_ text: String, at now: UInt64 = 0) -> [Action] { send(Array(text.utf8), at: now) }

        /// Steps over what waits until the machine stops.
        @discardableResult
        mutating func run(at now: UInt64 = 0) -> [Action] {
            var decided: [Action] = []
            while true {
                let held = waiting
                let step = held.withUnsafeBytes { buffer in
                    machine.nextStep(available: buffer.count, now: now) { UnsafeRawBufferPointer(rebasing: buffer[0..<$0]) }
                }
                if step.isEmpty { break }
                for action in step {
                    switch action {
                    case .pass(let count):
                        passed += waiting[0..<count]
                        waiting.removeFirst(count)
                    case .drop(let count):
                        waiting.removeFirst(count)
                    default:
                        break
                    }
                }
                decided += step
            }
            actions += decided
            return decided
        }

        /// The request let through is handled and its reply of `bytes` written at `now`.
        @discardableResult
        mutating func answer(bytes: Int = 10, at now: UInt64 = 0) -> [Action] {
            machine.dispatch()
            return machine.replySent(bytes: bytes) + machine.replyFlushed(now: now) + run(at: now)
        }
    }

    private static let get = "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n"

    private func refusal(in actions: [Action]) -> (GuardRefusal<String>, RequestHead?)? {
        for case .refuse(let refusal, let head) in actions { return (refusal, head) }
        return nil
    }

    // MARK: Heads

    func testHeadPassesOnlyWhenWholeAndHasOneDeadline() {
        var connection = Connection()
        XCTAssertEqual(connection.actions, [.armTimer(seconds: 30)], "the idle deadline")
        var armed: [Action] = []
        for byte in Self.get.utf8.dropLast() {
            armed += connection.send([byte]).filter { if case .armTimer = $0 { true } else { false } }
            XCTAssertTrue(connection.passed.isEmpty)
        }
        // A trickle of bytes does not extend the head's deadline: it is set once.
        XCTAssertEqual(armed, [.armTimer(seconds: 10)])
        XCTAssertEqual(connection.machine.deadline, .head)
        XCTAssertEqual(connection.send("\n"), [.pass(Self.get.utf8.count), .disarmTimer])
        XCTAssertEqual(connection.passed, Array(Self.get.utf8))
        XCTAssertEqual(connection.machine.currentHead?.path, "/healthz")
        XCTAssertTrue(connection.machine.requestOutstanding)
    }

    func testSlowHeadIsRefusedAtItsDeadlineAndTheRestDropped() {
        var connection = Connection()
        connection.send("GET /healthz HTTP/1.1\r\nHo")
        XCTAssertEqual(connection.machine.deadlinePassed(), [.disarmTimer, .refuse(.headerTimeout(seconds: 10), head: nil)])
        XCTAssertTrue(connection.machine.isClosed)
        // The part of the head that waited goes with what follows it.
        XCTAssertEqual(connection.send("st: x\r\n\r\n"), [.drop("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8.count)])
        XCTAssertTrue(connection.passed.isEmpty)
        XCTAssertEqual(connection.machine.deadlinePassed(), [], "closed: nothing more is decided")
    }

    func testBlankLinesBeforeARequestLineAreDroppedWithoutADeadline() {
        var connection = Connection()
        XCTAssertEqual(connection.send("\r\n\r\n"), [.drop(4)])
        XCTAssertEqual(connection.machine.deadline, .idle)
        connection.send(Self.get)
        XCTAssertEqual(connection.passed, Array(Self.get.utf8))
    }

    func testHeadOverTheSizeLimitIs431() {
        var connection = Connection()
        let actions = connection.send("GET /healthz HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: 40_000))
        XCTAssertEqual(refusal(in: actions)?.0, .headTooLarge(limit: GuardLimits.maximumHeadSize))
        XCTAssertTrue(connection.passed.isEmpty)
        XCTAssertTrue(connection.waiting.isEmpty, "everything after a refusal is dropped")
        // Just under the limit the head is still awaited.
        var under = Connection()
        under.send("GET /healthz HTTP/1.1\r\nX-Big: " + String(repeating: "a", count: GuardLimits.maximumHeadSize - 40))
        XCTAssertNil(refusal(in: under.actions))
    }

    func testMalformedOrAmbiguousHeadsAreRefused() {
        var garbage = Connection()
        guard case (.badHead(let error, let path), nil)? = refusal(in: garbage.send("THIS IS NOT HTTP\r\n\r\n")) else {
            return XCTFail("\(garbage.actions)")
        }
        XCTAssertEqual(error.kind, .malformed)
        XCTAssertEqual(path, "IS", "the request line's second word, for the log")

        var ambiguous = Connection()
        let actions = ambiguous.send("POST /v1/decode?x=1 HTTP/1.1\r\nContent-Length: 5\r\nContent-Length: 50\r\n\r\nhello")
        guard case (.badHead(let framing, let framingPath), let head)? = refusal(in: actions) else { return XCTFail("\(actions)") }
        XCTAssertEqual(framing.kind, .ambiguousFraming)
        XCTAssertEqual(framingPath, "/v1/decode")
        XCTAssertEqual(head?.path, "/v1/decode")
        XCTAssertTrue(ambiguous.passed.isEmpty)
    }

    // MARK: Admission

    func testBodyOverTheLimitIsRefusedFromItsHead() {
        var connection = Connection()
        let actions = connection.send("POST /v1/decode HTTP/1.1\r\nContent-Length: 104857600\r\nExpect: 100-continue\r\n\r\n")
        XCTAssertEqual(refusal(in: actions)?.0, .bodyTooLarge(size: 104_857_600, limit: 1 << 20))
        XCTAssertEqual(refusal(in: actions)?.1?.path, "/v1/decode")
        XCTAssertTrue(connection.machine.admission.begun.isEmpty, "the admission is not asked for a body over the limit")
        XCTAssertTrue(connection.passed.isEmpty)
    }

    func testAdmissionRefusesFromTheHead() {
        var connection = Connection(admission: TestAdmission(announceable: 1_000))
        let actions = connection.send("POST /v1/decode HTTP/1.1\r\nContent-Length: 5000\r\n\r\n")
        XCTAssertEqual(refusal(in: actions)?.0, .denied("needs 5000"))
        XCTAssertTrue(connection.passed.isEmpty)
        XCTAssertEqual(connection.machine.admission.released, 1)
    }

    /// A head that announces a large body and sends nothing holds nothing: the admission is
    /// asked to begin, never to hold a byte.
    func testHeadWithoutItsBodyHoldsNothing() {
        var connection = Connection()
        let head = "POST /v1/decode HTTP/1.1\r\nContent-Length: \(7 << 17)\r\n\r\n"
        XCTAssertEqual(connection.send(head), [.armTimer(seconds: 10), .pass(head.utf8.count), .armTimer(seconds: 30 + (7 << 17) / (256 << 10))])
        XCTAssertEqual(connection.machine.admission.begun, [7 << 17])
        XCTAssertEqual(connection.machine.admission.held, 0)
        XCTAssertTrue(connection.machine.admission.received.isEmpty)
        XCTAssertEqual(connection.machine.eviction(unread: 0, now: 5 * Self.second), .body(bytesPerSecond: 0))
    }

    func testBodyIsAdmittedAsItArrives() {
        var connection = Connection(admission: TestAdmission(free: 2_500))
        connection.send("POST /v1/decode HTTP/1.1\r\nContent-Length: 3000\r\n\r\n")
        connection.send([UInt8](repeating: 1, count: 1_000))
        connection.send([UInt8](repeating: 2, count: 1_000))
        XCTAssertEqual(connection.machine.admission.received, [1_000, 2_000])
        XCTAssertEqual(connection.machine.admission.totals, [3_000, 3_000])
        XCTAssertEqual(connection.machine.admission.held, 2_000)
        let actions = connection.send([UInt8](repeating: 3, count: 1_000))
        XCTAssertEqual(refusal(in: actions)?.0, .denied("needs 3000"))
        XCTAssertEqual(connection.machine.admission.held, 0, "released with the connection")
    }

    func testBodyDeadlineIsTheTimeoutPlusItsLengthAtTheMinimumRate() {
        var connection = Connection()
        let length = 1 << 20
        let head = "POST /v1/decode HTTP/1.1\r\nContent-Length: \(length)\r\n\r\n"
        let actions = connection.send(head + "bplist00")
        let allowance = 30 + length / GuardLimits.minimumTransferRate
        XCTAssertEqual(actions, [.armTimer(seconds: 10), .pass(head.utf8.count), .armTimer(seconds: allowance), .pass(8)])
        XCTAssertEqual(connection.machine.deadline, .body)
        // More of the body does not move the deadline.
        XCTAssertFalse(connection.send([UInt8](repeating: 0, count: 4_096)).contains { if case .armTimer = $0 { true } else { false } })
        guard case (.bodyTimeout, let head)? = refusal(in: connection.machine.deadlinePassed()) else { return XCTFail() }
        XCTAssertEqual(head?.path, "/v1/decode")
    }

    // MARK: One request at a time

    func testPipelinedRequestsPassOneAtATime() {
        var connection = Connection()
        let post = "POST /v1/decode HTTP/1.1\r\nContent-Length: 3\r\n\r\nabc"
        connection.send(Self.get + post + Self.get)
        XCTAssertEqual(connection.passed, Array(Self.get.utf8), "the next request waits for this one's reply")
        XCTAssertEqual(connection.waiting.count, post.utf8.count + Self.get.utf8.count)
        XCTAssertEqual(connection.machine.eviction(unread: connection.waiting.count, now: 0), nil)

        let answered = connection.answer(bytes: 100)
        XCTAssertEqual(answered.first, .armTimer(seconds: 30), "the reply's deadline")
        XCTAssertEqual(connection.passed, Array((Self.get + post).utf8))
        XCTAssertFalse(connection.machine.admission.begun.isEmpty)
        connection.answer()
        XCTAssertEqual(connection.passed, Array((Self.get + post + Self.get).utf8))
        XCTAssertTrue(connection.waiting.isEmpty)
    }

    /// The body of a HEAD or TRACE request, or of an unknown method, is dropped, never taken for
    /// the next request, and never admitted.
    func testBodyLibeventDoesNotReadIsDropped() {
        let hidden = "GET /metrics HTTP/1.1\r\nHost: x\r\n\r\n"
        for method in ["HEAD", "TRACE", "PROPFIND"] {
            var connection = Connection()
            let head = "\(method) /healthz HTTP/1.1\r\nContent-Length: \(hidden.utf8.count)\r\n\r\n"
            connection.send(head + hidden + Self.get)
            XCTAssertTrue(connection.actions.contains(.drop(hidden.utf8.count)), method)
            XCTAssertEqual(connection.passed, Array(head.utf8), method)
            XCTAssertTrue(connection.machine.admission.begun.isEmpty, method)
            connection.answer()
            XCTAssertEqual(connection.passed, Array((head + Self.get).utf8), method)
        }
    }

    // MARK: Chunked bodies

    private static let chunkedHead = "POST /v1/decode HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"

    func testChunkedBodyPassesToItsEnd() {
        var connection = Connection()
        let body = "4\r\nWiki\r\n5 ext\r\npedia\r\n0\r\nX-Trailer: 1\r\n\r\n"
        let actions = connection.send(Self.chunkedHead + body + Self.get)
        XCTAssertTrue(actions.contains(.armTimer(seconds: 30 + (1 << 20) / GuardLimits.minimumTransferRate)), "a chunked body has the allowance of the largest")
        XCTAssertEqual(connection.passed, Array((Self.chunkedHead + body).utf8))
        XCTAssertEqual(connection.machine.admission.begun, [0])
        XCTAssertEqual(connection.machine.admission.chunks, [4, 9, 9])
        XCTAssertEqual(connection.machine.deadline, .none, "the body's deadline ends with it")
        XCTAssertEqual(connection.waiting, Array(Self.get.utf8))
    }

    func testChunkOverTheLimitIsRefusedBeforeItsSizeLinePasses() {
        var connection = Connection()
        let actions = connection.send(Self.chunkedHead + "4\r\nWiki\r\nFFFFFFF\r\n")
        XCTAssertEqual(refusal(in: actions)?.0, .bodyTooLarge(size: 4 + 0xFFF_FFFF, limit: 1 << 20))
        // The chunks read with the refused size line in one window do not pass either.
        XCTAssertEqual(connection.passed, Array(Self.chunkedHead.utf8))
    }

    func testChunksTheAdmissionRefusesAndMalformedChunksAreRefused() {
        var denied = Connection(admission: TestAdmission(free: 10))
        XCTAssertEqual(refusal(in: denied.send(Self.chunkedHead + "20\r\n"))?.0, .denied("chunks of 32"))
        var malformed = Connection()
        XCTAssertEqual(refusal(in: malformed.send(Self.chunkedHead + "zz\r\n"))?.0, .badChunk(detail: "A chunk size is not a hexadecimal number."))
    }

    // MARK: Replies, idleness and eviction

    func testReplyDeadlineCutsOffAClientThatDoesNotRead() {
        var connection = Connection()
        connection.send(Self.get)
        connection.machine.dispatch()
        XCTAssertEqual(connection.machine.replySent(bytes: 64 << 20), [.armTimer(seconds: 30 + (64 << 20) / GuardLimits.minimumTransferRate)])
        XCTAssertTrue(connection.machine.dispatched)
        XCTAssertEqual(connection.machine.deadlinePassed(), [.disarmTimer, .close(.replyNotRead)])
        XCTAssertTrue(connection.machine.detach(), "the reply was abandoned")
    }

    func testStreamedReplyHasNoDeadlineBetweenChunksAndOnePerChunkQueued() {
        var connection = Connection()
        connection.send(Self.get + Self.get)
        connection.machine.dispatch()
        XCTAssertEqual(connection.machine.chunkQueued(unwritten: 10), [], "no stream, no chunk deadline")
        XCTAssertEqual(connection.machine.replyStreamStarted(), [], "the timer was already stopped after the head")
        XCTAssertTrue(connection.machine.replyPending)
        XCTAssertEqual(connection.machine.deadline, .none, "the server makes its first chunk without a deadline")
        let unwritten = 3 << 20
        XCTAssertEqual(connection.machine.chunkQueued(unwritten: unwritten), [.armTimer(seconds: 30 + unwritten / GuardLimits.minimumTransferRate)])
        XCTAssertEqual(connection.machine.deadline, .reply)
        XCTAssertEqual(connection.machine.chunksWritten(), [.disarmTimer])
        XCTAssertEqual(connection.machine.deadline, .none, "waiting for the server's next chunk")
        XCTAssertEqual(connection.machine.chunksWritten(), [], "nothing to stop")
        XCTAssertEqual(connection.run(), [], "the next request waits while the stream is pending")
        _ = connection.machine.chunkQueued(unwritten: 5)
        XCTAssertEqual(connection.machine.replyFlushed(now: 0), [.armTimer(seconds: 30)], "written whole: idle")
        XCTAssertFalse(connection.machine.replyPending)
        XCTAssertTrue(connection.run().contains(.pass(Self.get.utf8.count)), "the next request comes through once the stream ended")
    }

    func testStreamedReplyNotReadBeforeItsChunkDeadlineIsCutOffAndAbandoned() {
        var connection = Connection()
        connection.send(Self.get)
        connection.machine.dispatch()
        _ = connection.machine.replyStreamStarted()
        _ = connection.machine.chunkQueued(unwritten: 64 << 10)
        XCTAssertEqual(connection.machine.deadlinePassed(), [.disarmTimer, .close(.replyNotRead)])
        XCTAssertEqual(connection.machine.chunkQueued(unwritten: 1), [], "a closed connection arms nothing")
        XCTAssertTrue(connection.machine.detach(), "the stream was abandoned")
    }

    func testIdleConnectionIsClosedAtTheTimeout() {
        var connection = Connection()
        XCTAssertEqual(connection.machine.deadlinePassed(), [.disarmTimer, .close(.idle)])
        XCTAssertEqual(connection.machine.refuse(.bodyTimeout, head: nil), [], "a closed connection is not refused")
        XCTAssertFalse(connection.machine.detach())
    }

    func testEvictionRanksWhatHoldsAConnectionWhileSendingLeast() {
        let opened = 10 * Self.second
        var idle = Connection(now: opened)
        XCTAssertEqual(idle.machine.eviction(unread: 0, now: opened + Self.second / 2), .idle(fresh: true))
        XCTAssertEqual(idle.machine.eviction(unread: 0, now: opened + 2 * Self.second), .idle(fresh: false))
        XCTAssertEqual(idle.machine.eviction(unread: 3, now: opened), .partialHead, "bytes wait unread")
        XCTAssertTrue(idle.machine.requestArriving(unread: 3, now: opened))
        XCTAssertFalse(idle.machine.requestArriving(unread: 0, now: opened))
        idle.send("GET /he", at: opened)
        XCTAssertEqual(idle.machine.eviction(unread: 0, now: opened), .partialHead)

        var body = Connection(now: opened)
        body.send("POST /v1/decode HTTP/1.1\r\nContent-Length: 100000\r\n\r\n", at: opened)
        body.send([UInt8](repeating: 0, count: 2_000), at: opened + Self.second)
        XCTAssertEqual(body.machine.eviction(unread: 0, now: opened + 2 * Self.second), .body(bytesPerSecond: 1_000))
        XCTAssertTrue(body.machine.requestArriving(unread: 0, now: opened))
        body.machine.dispatch()
        XCTAssertNil(body.machine.eviction(unread: 0, now: opened), "its request is with the server")
        XCTAssertFalse(body.machine.requestArriving(unread: 0, now: opened))

        let order: [Eviction] = [.idle(fresh: true), .body(bytesPerSecond: 9), .partialHead, .body(bytesPerSecond: 1), .idle(fresh: false)]
        XCTAssertEqual(
            order.sorted { $0.rank < $1.rank },
            [.idle(fresh: false), .partialHead, .body(bytesPerSecond: 1), .body(bytesPerSecond: 9), .idle(fresh: true)])
    }
}

/// An admission that admits heads announcing up to `announceable` bytes, holds what it is told
/// up to `free` bytes, and records what it was asked.
private struct TestAdmission: BodyAdmission {
    var announceable = Int.max
    var free = Int.max
    private(set) var begun: [Int] = []
    private(set) var received: [Int] = []
    private(set) var totals: [Int] = []
    private(set) var chunks: [Int] = []
    private(set) var held = 0
    private(set) var released = 0

    mutating func begin(_ head: RequestHead, announced: Int) -> String? {
        begun.append(announced)
        return announced > announceable ? "needs \(announced)" : nil
    }

    mutating func received(_ received: Int, upTo total: Int, of head: RequestHead?) -> String? {
        self.received.append(received)
        totals.append(total)
        guard received <= free else { return "needs \(received)" }
        held = received
        return nil
    }

    mutating func chunksAnnounced(_ announced: Int, of head: RequestHead) -> String? {
        chunks.append(announced)
        return announced > free ? "chunks of \(announced)" : nil
    }

    mutating func release() {
        held = 0
        released += 1
    }

    mutating func takeOver() -> (any HeldResources)? { nil }
}
