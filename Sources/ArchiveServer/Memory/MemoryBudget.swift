import HTTPCore
import PThreads

/// The bytes this process may spend on requests at once: bodies being received, conversions in
/// progress and replies not yet sent. Every such byte is reserved here before it is held; a
/// request that cannot reserve what it needs is refused (503 while others hold the budget, 413
/// when it would not fit even alone) instead of growing the process toward the container's
/// memory limit, where the kernel would kill it and every request with it.
///
/// What the budget does not cover is bounded separately: the process's own baseline, and per
/// connection at most one request head (`GuardLimits.maximumHeadSize`) and libevent's read
/// and write slices. Deployment sizing (docs/service.md) adds those to it.
///
/// Thread-safe: loops reserve at admission, workers grow and shrink while converting.
final class MemoryBudget: @unchecked Sendable {
    /// Bytes that may be reserved at once.
    let capacity: Int
    private let mutex = PThreadMutex()
    private var reserved = 0  // guarded by mutex
    private var highWater = 0  // guarded by mutex

    init(capacity: Int) {
        precondition(capacity > 0, "a memory budget needs a positive capacity")
        self.capacity = capacity
    }

    /// Reserves `bytes`, or returns nil when they do not fit now.
    func reserve(_ bytes: Int) -> Reservation? {
        let bytes = max(0, bytes)
        let granted: Bool = mutex.withLock {
            guard bytes <= capacity - reserved else { return false }
            reserved += bytes
            highWater = max(highWater, reserved)
            return true
        }
        return granted ? Reservation(budget: self, bytes: bytes) : nil
    }

    /// Bytes not reserved now (a moment's reading: another thread may take them next).
    var available: Int { mutex.withLock { capacity - reserved } }

    struct Snapshot: Sendable {
        var capacity: Int
        var reserved: Int
        var highWater: Int
    }

    var snapshot: Snapshot {
        mutex.withLock { Snapshot(capacity: capacity, reserved: reserved, highWater: highWater) }
    }

    /// Moves a reservation from `current` to `current + delta` bytes if it fits; the new size.
    /// `allowPartial`: grant what is free, when not all of `delta` is.
    fileprivate func resize(_ current: Int, by delta: Int, allowPartial: Bool) -> Int {
        mutex.withLock {
            var delta = delta
            if delta > 0, delta > capacity - reserved {
                guard allowPartial else { return current }
                delta = max(0, capacity - reserved)
            }
            let change = max(delta, -current)
            reserved += change
            highWater = max(highWater, reserved)
            return current + change
        }
    }
}

/// Bytes held in a `MemoryBudget` for one request. Released when the reservation is freed, so
/// every path that drops a request (reply flushed, client gone, connection cut off) gives its
/// bytes back without having to remember to.
///
/// Thread contract: used by one thread at a time (the loop, then a worker, then the loop again,
/// handed over through the pool's and the mailbox's locks).
final class Reservation: HeldResources, @unchecked Sendable {
    private let budget: MemoryBudget
    private(set) var bytes: Int

    fileprivate init(budget: MemoryBudget, bytes: Int) {
        self.budget = budget
        self.bytes = bytes
    }

    deinit {
        _ = budget.resize(bytes, by: -bytes, allowPartial: false)
    }

    /// The budget's capacity: a request needing more can never be served.
    var capacity: Int { budget.capacity }

    /// A new, empty reservation in the same budget, for work admitted on its own beside this
    /// reservation's (each part of a form, while the form's body and reply stay here). Reserving
    /// nothing always fits; nil is the budget's answer if it ever did not.
    func companion() -> Reservation? {
        budget.reserve(0)
    }

    /// Adds `delta` bytes if they fit; false (and nothing added) if they do not.
    func grow(by delta: Int) -> Bool {
        guard delta > 0 else { return true }
        let before = bytes
        bytes = budget.resize(before, by: delta, allowPartial: false)
        return bytes == before + delta
    }

    /// Grows to hold at least `total` bytes if they fit; false (and nothing added) if they do
    /// not. A reservation already that large is left as it is.
    func grow(to total: Int) -> Bool {
        grow(by: total - bytes)
    }

    /// Adds up to `delta` bytes, as many as are free; returns how many were added.
    func grow(upTo delta: Int) -> Int {
        guard delta > 0 else { return 0 }
        let before = bytes
        bytes = budget.resize(before, by: delta, allowPartial: true)
        return bytes - before
    }

    /// Gives back everything above `size` bytes.
    func shrink(to size: Int) {
        guard size < bytes else { return }
        bytes = budget.resize(bytes, by: max(0, size) - bytes, allowPartial: false)
    }
}
