/// The decisions of a connection guard, as a value: the bytes a client sends and the time (as a
/// number passed in) go in, `GuardAction`s come out. It holds no socket, calls no libevent and
/// reads no clock, so every decision can be tested by feeding it bytes; a shell feeds it from
/// libevent (`GuardedSocket`) and carries out what it decides. What it decides:
///
/// - it reads each request head itself (`RequestHead`) and only then lets it through, so a
///   request is admitted against `GuardLimits.maxBodySize` and the application's
///   `BodyAdmission` from its `Content-Length` before a byte of its body is read, and refused
///   otherwise; the admission is then asked again as the body's bytes arrive, so a head that
///   announces a large body and sends nothing holds nothing;
/// - the whole head and the whole body each have a deadline, not reset by a trickle of bytes;
/// - it passes one request at a time: bytes after a request wait (the shell stops reading the
///   socket past `GuardLimits.heldBytesLimit`) until its reply has been written, so a pipelining client
///   cannot queue unbounded input, and the body of a request libevent would not read (HEAD,
///   TRACE, unknown methods) is dropped instead of being taken for the next request;
/// - a reply has a deadline too, after which a client that does not read is cut off (and the
///   reply's memory freed), and a
///   connection idle between requests is closed after the timeout. These are the connection's
///   only deadlines, all on one timer (`GuardAction.armTimer`).
///
/// Times are monotonic nanoseconds, used only to rank connections for eviction.
package struct GuardMachine<Admission: BodyAdmission> {
    package typealias Action = GuardAction<Admission.Denial>

    private enum Phase {
        /// Reading a head; `scanned` bytes of it were searched for its end.
        case head(scanned: Int)
        case body(remaining: Int)
        case chunked(ChunkedBodyFramer)
        /// Refused or cut off: everything the client still sends is dropped.
        case closed
    }

    /// What the connection's timer is set for.
    package enum Deadline: Sendable, Equatable { case none, idle, head, body, reply }

    package let limits: GuardLimits
    /// The application's side of admitting bodies; the shell takes over what it holds when a
    /// request is dispatched.
    package var admission: Admission

    private var phase = Phase.head(scanned: 0)
    package private(set) var deadline = Deadline.none
    /// The current request's body is one libevent leaves unread: the guard drops it.
    private var droppingBody = false
    /// A request was let through and its reply has not been written yet.
    package private(set) var requestOutstanding = false
    /// That request reached the handler, so a reply to it is (or will be) libevent's to write.
    package private(set) var dispatched = false
    /// A reply was handed to libevent and has not been written yet.
    package private(set) var replyPending = false
    /// The head let through last: for refusals that come later (body deadline, chunk size), and
    /// for the handler, which reads the request as the guard did (`RequestHead.closeRequested`).
    package private(set) var currentHead: RequestHead?
    /// Chunk sizes announced so far of the current chunked body.
    private var chunkedBytes = 0
    /// Body bytes of the current request let through (or dropped) so far (`received(_:upTo:)`).
    private var receivedBytes = 0
    /// When the current request's head was let through, for the rate its body arrives at
    /// (`eviction`).
    private var headPassedAt: UInt64 = 0
    /// Since when the connection has waited for a request (accepted, or its last reply written).
    private var idleSince: UInt64

    /// Most bytes before a request line searched for blank lines at a time.
    private static var blankLineWindow: Int { 64 }

    /// A connection accepted at `now`, waiting for its first request. Arm the timer with
    /// `start()`.
    package init(limits: GuardLimits, admission: Admission, now: UInt64) {
        self.limits = limits
        self.admission = admission
        idleSince = now
    }

    /// The timer of a connection just accepted: the idle deadline.
    package mutating func start() -> [Action] {
        [arm(.idle, seconds: limits.timeout)]
    }

    package var isClosed: Bool {
        if case .closed = phase { return true }
        return false
    }

    // MARK: Input

    /// The next step over the socket's input: `available` bytes wait there, and `peek(n)` shows
    /// the first n of them (n ≤ `available`) contiguously. Returns what to do with them; empty
    /// when nothing more can be done until more bytes arrive or the reply has been written. The
    /// shell carries out the actions (a `.pass` or `.drop` consumes what it names) before asking
    /// for the next step.
    package mutating func nextStep(
        available: Int, now: UInt64, peek: (Int) -> UnsafeRawBufferPointer
    ) -> [Action] {
        guard available > 0 else { return [] }
        switch phase {
        case .closed:
            return [.drop(available)]
        case .head(let scanned):
            return headStep(scanned: scanned, available: available, now: now, peek: peek)
        case .body(let remaining):
            let taken = min(remaining, available)
            if let refusal = received(taken, upTo: receivedBytes + remaining) { return refuse(refusal, head: currentHead) }
            var actions = [consume(taken)]
            if taken == remaining {
                actions += bodyEnded()
            } else {
                phase = .body(remaining: remaining - taken)
            }
            return actions
        case .chunked(let framer):
            return chunkedStep(framer, available: available, peek: peek)
        }
    }

    private mutating func headStep(
        scanned: Int, available: Int, now: UInt64, peek: (Int) -> UnsafeRawBufferPointer
    ) -> [Action] {
        if requestOutstanding { return [] }
        var actions: [Action] = []
        // Room for what a head's step takes (arm, pass, disarm or arm again) at once, not
        // grown from one by copying: this runs for every request.
        actions.reserveCapacity(4)
        if scanned == 0 {
            // CR and LF bytes before a request line are dropped (RFC 9112 §2.2).
            let window = peek(min(available, Self.blankLineWindow))
            let blanks = window.prefix { $0 == UInt8(ascii: "\r") || $0 == UInt8(ascii: "\n") }.count
            if blanks > 0 { return [.drop(blanks)] }
        }
        if deadline == .none || deadline == .idle { actions.append(arm(.head, seconds: limits.headerTimeout)) }
        let window = min(available, GuardLimits.maximumHeadSize)
        let bytes = peek(window)
        guard let end = RequestHead.endOfHead(in: bytes, from: RequestHead.resumePoint(afterSearching: scanned)) else {
            if window >= GuardLimits.maximumHeadSize {
                return actions + refuse(.headTooLarge(limit: GuardLimits.maximumHeadSize), head: nil)
            }
            phase = .head(scanned: window)
            return actions
        }
        let head: RequestHead
        do {
            head = try RequestHead.parse(UnsafeRawBufferPointer(rebasing: bytes[0..<end]))
        } catch {
            return actions + refuse(.badHead(error, path: error.head?.path ?? Self.pathForLog(bytes[0..<end])), head: error.head)
        }
        if let refusal = admit(head) { return actions + refuse(refusal, head: head) }
        actions.append(.pass(end))
        requestOutstanding = true
        currentHead = head
        headPassedAt = now
        droppingBody = !head.method.bodyIsReadByLibevent
        switch head.body {
        case .none:
            phase = .head(scanned: 0)
            if deadline == .head { actions.append(disarm()) }
        case .length(let length):
            phase = .body(remaining: length)
            actions.append(arm(.body, seconds: transferSeconds(length)))
        case .chunked:
            chunkedBytes = 0
            phase = .chunked(ChunkedBodyFramer())
            actions.append(arm(.body, seconds: transferSeconds(limits.maxBodySize)))
        }
        return actions
    }

    private mutating func chunkedStep(
        _ framer: ChunkedBodyFramer, available: Int, peek: (Int) -> UnsafeRawBufferPointer
    ) -> [Action] {
        var framer = framer
        if case .data(let remaining) = framer.state {
            let taken = min(remaining, available)
            if let refusal = received(taken, upTo: chunkedBytes) { return refuse(refusal, head: currentHead) }
            framer.skipData(taken)
            phase = .chunked(framer)
            return [consume(taken)]
        }
        let bytes = peek(min(available, ChunkedBodyFramer.maximumLineLength + 2))
        var refusal: GuardRefusal<Admission.Denial>?
        let used: Int
        let dataBefore = framer.dataBytes
        do {
            used = try framer.consume(bytes) { size in
                refusal = admitChunk(size)
                return refusal == nil
            }
        } catch {
            return refuse(.badChunk(detail: error.detail), head: currentHead)
        }
        if refusal == nil { refusal = received(framer.dataBytes - dataBefore, upTo: chunkedBytes) }
        if let refusal {
            // The refused chunk's size line is not let through: libevent would answer it itself
            // (an HTML 413 beside the guard's refusal).
            return refuse(refusal, head: currentHead)
        }
        var actions: [Action] = used > 0 ? [consume(used)] : []
        if framer.state == .done {
            actions += bodyEnded()
        } else {
            phase = .chunked(framer)
        }
        return actions
    }

    /// Body bytes let through, or dropped for a body libevent leaves unread.
    private func consume(_ count: Int) -> Action {
        droppingBody ? .drop(count) : .pass(count)
    }

    private mutating func bodyEnded() -> [Action] {
        phase = .head(scanned: 0)
        droppingBody = false
        return deadline == .body ? [disarm()] : []
    }

    /// Seconds allowed for `bytes` to move: the configured timeout plus the bytes at the
    /// minimum transfer rate.
    package func transferSeconds(_ bytes: Int) -> Int {
        limits.timeout + bytes / GuardLimits.minimumTransferRate
    }

    // MARK: Admission

    /// Decides on a complete head; nil admits it. A body over the size limit is refused (413),
    /// and one the application's admission refuses too, before a byte of it is read.
    private mutating func admit(_ head: RequestHead) -> GuardRefusal<Admission.Denial>? {
        receivedBytes = 0
        switch head.body {
        case .length(let length) where head.method.bodyIsReadByLibevent:
            if length > limits.maxBodySize { return .bodyTooLarge(size: length, limit: limits.maxBodySize) }
            return admission.begin(head, announced: length).map { .denied($0) }
        case .chunked where head.method.bodyIsReadByLibevent:
            return admission.begin(head, announced: 0).map { .denied($0) }
        default:
            return nil
        }
    }

    /// `count` more body bytes are about to be let through, of a body that will have `total`
    /// at most; nil when the admission grants what they need.
    private mutating func received(_ count: Int, upTo total: Int) -> GuardRefusal<Admission.Denial>? {
        receivedBytes += count
        guard !droppingBody else { return nil }
        return admission.received(receivedBytes, upTo: total, of: currentHead).map { .denied($0) }
    }

    /// A chunk of `size` bytes was announced; nil admits it (its bytes are admitted as they
    /// arrive, `received`).
    private mutating func admitChunk(_ size: Int) -> GuardRefusal<Admission.Denial>? {
        guard let head = currentHead, !droppingBody else { return nil }
        chunkedBytes += size
        if chunkedBytes > limits.maxBodySize { return .bodyTooLarge(size: chunkedBytes, limit: limits.maxBodySize) }
        return admission.chunksAnnounced(chunkedBytes, of: head).map { .denied($0) }
    }

    // MARK: Requests and replies

    /// The request let through has reached the handler; the shell takes over what `admission`
    /// holds for it.
    package mutating func dispatch() {
        dispatched = true
    }

    /// A reply of `bytes` bytes was handed to the parser to write.
    package mutating func replySent(bytes: Int) -> [Action] {
        replyPending = true
        return [arm(.reply, seconds: transferSeconds(bytes))]
    }

    /// A streamed reply began: its head was handed to the parser, and its body follows in
    /// chunks as the server makes them (`ReplyStream`). The reply is pending until its end is
    /// written (`replyFlushed`); while the server makes its next chunk there is no deadline (the
    /// server bounds its own work: a conversion has its timeout), so the timer is stopped.
    package mutating func replyStreamStarted() -> [Action] {
        replyPending = true
        return deadline == .none ? [] : [disarm()]
    }

    /// A chunk of a streamed reply was handed to the parser, leaving `unwritten` bytes queued and
    /// not yet taken by the socket: they must all be written within the transfer allowance of
    /// that many bytes (`transferSeconds`), counted from now, or the client is cut off. The
    /// server queues more only while few are unwritten (`ReplyStream.queueLimit`), so a client
    /// that does not read meets this deadline at most `transferSeconds(queueLimit + a chunk)`
    /// after the server stopped queueing.
    package mutating func chunkQueued(unwritten: Int) -> [Action] {
        guard replyPending, !isClosed else { return [] }
        return [arm(.reply, seconds: transferSeconds(unwritten))]
    }

    /// Every chunk queued so far has been written: no deadline until the next one is queued.
    package mutating func chunksWritten() -> [Action] {
        guard replyPending, deadline == .reply else { return [] }
        return [disarm()]
    }

    /// The reply was written at `now`: the next request may come through. The shell then runs
    /// the input again over bytes that wait in the socket's buffer.
    package mutating func replyFlushed(now: UInt64) -> [Action] {
        idleSince = now
        replyPending = false
        requestOutstanding = false
        dispatched = false
        currentHead = nil
        if deadline == .reply || deadline == .none { return [arm(.idle, seconds: limits.timeout)] }
        return []
    }

    /// The connection is being freed: returns whether a reply was still pending (abandoned).
    package mutating func detach() -> Bool {
        defer {
            replyPending = false
            phase = .closed
            admission.release()
        }
        return replyPending
    }

    // MARK: Deadlines

    private mutating func arm(_ kind: Deadline, seconds: Int) -> Action {
        deadline = kind
        return .armTimer(seconds: seconds)
    }

    private mutating func disarm() -> Action {
        deadline = .none
        return .disarmTimer
    }

    /// The timer fired.
    package mutating func deadlinePassed() -> [Action] {
        let kind = deadline
        deadline = .none
        switch kind {
        case .none:
            return []
        case .idle:
            return close(.idle)
        case .head:
            return refuse(.headerTimeout(seconds: limits.headerTimeout), head: nil)
        case .body:
            return refuse(.bodyTimeout, head: currentHead)
        case .reply:
            return close(.replyNotRead)
        }
    }

    // MARK: Refusing and closing

    /// Refuses `refusal` and closes: from now on everything the client sends is dropped.
    package mutating func refuse(_ refusal: GuardRefusal<Admission.Denial>, head: RequestHead?) -> [Action] {
        guard !isClosed else { return [] }
        return shut() + [.refuse(refusal, head: head)]
    }

    /// Closes without an answer.
    package mutating func close(_ reason: GuardCloseReason) -> [Action] {
        guard !isClosed else { return [] }
        return shut() + [.close(reason)]
    }

    private mutating func shut() -> [Action] {
        phase = .closed
        admission.release()
        return [disarm()]
    }

    // MARK: Eviction

    /// A request of this connection has begun and is not yet with the server: part of its head
    /// has arrived (some of the `unread` bytes the shell holds, or bytes scanned), or its head
    /// has and its body is arriving. A drain waits for it.
    package func requestArriving(unread: Int, now: UInt64) -> Bool {
        if isClosed { return false }
        if requestOutstanding { return !dispatched }
        if case .partialHead? = eviction(unread: unread, now: now) { return true }
        return false
    }

    /// How the connection may be closed at `now` to make room for another, with `unread` bytes
    /// in the socket's buffer not yet seen; nil while a request of it is with the server.
    package func eviction(unread: Int, now: UInt64) -> Eviction? {
        switch phase {
        case .head(let scanned) where !requestOutstanding:
            guard scanned == 0, unread == 0 else { return .partialHead }
            return .idle(fresh: now &- idleSince < GuardLimits.freshIdleNanos)
        case .body, .chunked:
            guard requestOutstanding, !dispatched else { return nil }
            let elapsed = max(now &- headPassedAt, 1_000_000)
            return .body(bytesPerSecond: Int(min(UInt64(receivedBytes) &* 1_000_000_000 / elapsed, UInt64(Int.max))))
        default:
            return nil
        }
    }

    /// The target of a head that could not be parsed, if its request line has one, for the log.
    private static func pathForLog(_ bytes: Slice<UnsafeRawBufferPointer>) -> String {
        let line = bytes.prefix { $0 != UInt8(ascii: "\r") && $0 != UInt8(ascii: "\n") }
        let parts = line.split(separator: UInt8(ascii: " "))
        guard parts.count >= 2 else { return "" }
        let target = String(decoding: parts[1].prefix(256), as: UTF8.self)
        return String(target.prefix { $0 != "?" })
    }
}
