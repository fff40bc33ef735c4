import ArchiveCodec
import PThreads

#if canImport(Glibc)
import Glibc
#endif

/// A fixed set of raw pthreads, each created with an exact stack size, fed from a bounded FIFO.
///
/// Raw pthreads (`PThread`) rather than `Thread` or Dispatch because the stack size is what makes the
/// depth limit safe. The queue is bounded so that overload turns into an immediate 503 instead of
/// unbounded memory and latency.
///
/// Capacity: `threadCount` jobs running plus `queueLimit` waiting. `submit` never blocks.
/// Every worker holds a reference to the pool until it exits, so a pool lives until `shutdown()`.
final class WorkerPool: @unchecked Sendable {
    typealias Job = @Sendable () -> Void

    struct Snapshot: Sendable, Equatable {
        var threads: Int
        var busy: Int
        var queued: Int
        var queueLimit: Int
        /// When every thread is busy: nanoseconds (monotonic) since the most recently started of
        /// their jobs began, i.e. how long every worker has been held by the job it is on. Nil
        /// while a thread is idle.
        var allBusyFor: UInt64? = nil
        /// True while one more job would be accepted.
        var hasCapacity: Bool { busy + queued < threads + queueLimit && threads > 0 }

        /// Equal counts (`allBusyFor`, a duration read from the clock, is left out).
        static func == (left: Snapshot, right: Snapshot) -> Bool {
            (left.threads, left.busy, left.queued, left.queueLimit) == (right.threads, right.busy, right.queued, right.queueLimit)
        }
    }

    let threadCount: Int
    let stackSize: Int
    let queueLimit: Int

    private let mutex = PThreadMutex()
    private let workAvailable = PThreadCondition()
    // Guarded by `mutex`: ring buffer of waiting jobs, counts and lifecycle.
    private var ring: [Job?]
    private var head = 0
    private var queued = 0
    private var busy = 0
    private var stopping = false
    private var discardOnStop = false
    private var threads: [PThread] = []
    /// Per thread: when its current job started (monotonic nanoseconds), 0 while idle.
    private var jobStarted: [UInt64]

    /// Starts `threadCount` threads with `stackSize`-byte stacks (rounded up to whole pages),
    /// each at niceness `nice` (Linux schedules threads one by one: a positive niceness lets the
    /// event loops, at 0, run first when the cores are all taken). Throws, after stopping any
    /// thread it did start, if a thread cannot be created.
    init(threadCount: Int, stackSize: Int, queueLimit: Int, nice: Int = 0) throws(PThreadError) {
        precondition(threadCount > 0 && queueLimit >= 0 && stackSize > 0)
        self.threadCount = threadCount
        self.queueLimit = queueLimit
        self.stackSize = PThread.stackSize(roundingUp: stackSize)
        // Waiting jobs never exceed the capacity, so the ring never needs to grow.
        ring = Array(repeating: nil, count: threadCount + queueLimit)
        jobStarted = Array(repeating: 0, count: threadCount)

        for index in 0..<threadCount {
            do {
                // The thread holds the pool until its loop returns (at shutdown).
                let thread = try PThread.start(name: Self.threadName(index), stackSize: self.stackSize) {
                    Self.lowerPriority(to: nice)
                    self.workerLoop(index)
                }
                mutex.withLock { threads.append(thread) }
            } catch {
                shutdown(discardPending: true)
                throw error
            }
        }
    }

    /// Queues `job` unless the pool is full or stopping. Returns whether it was accepted.
    func submit(_ job: @escaping Job) -> Bool {
        mutex.lock()
        guard !stopping, busy + queued < threadCount + queueLimit else {
            mutex.unlock()
            return false
        }
        ring[(head + queued) % ring.count] = job
        queued += 1
        mutex.unlock()
        workAvailable.signal()
        return true
    }

    var snapshot: Snapshot {
        let now = monotonicNanoseconds()
        return mutex.withLock {
            var snapshot = Snapshot(threads: threadCount, busy: busy, queued: queued, queueLimit: queueLimit)
            if busy == threadCount, let youngest = jobStarted.max(), jobStarted.allSatisfy({ $0 != 0 }) {
                snapshot.allBusyFor = now > youngest ? now - youngest : 0
            }
            return snapshot
        }
    }

    /// Sets the calling thread's niceness: on Linux the nice value is the thread's, and
    /// `setpriority(PRIO_PROCESS, 0, …)` names the calling thread. Raising it needs no
    /// privilege; a refusal leaves the thread as it was.
    /// Worker `index`'s thread name, `archive-work-1` on: one thread of `top -H` or a profile
    /// told from another (`archive-worker-N` would leave no room for N in Linux's 15 bytes).
    static func threadName(_ index: Int) -> String { "archive-work-\(index + 1)" }

    private static func lowerPriority(to nice: Int) {
        #if canImport(Glibc)
        guard nice > 0 else { return }
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, Int32(nice))
        #endif
    }

    /// Stops the pool and joins every thread. Jobs already running always finish; waiting jobs run
    /// first unless `discardPending`. Idempotent; must not be called from a worker thread.
    func shutdown(discardPending: Bool = false) {
        mutex.withLock {
            stopping = true
            if discardPending { discardOnStop = true }
        }
        workAvailable.broadcast()
        joinAll()
    }

    private func joinAll() {
        let toJoin: [PThread] = mutex.withLock {
            defer { threads.removeAll() }
            return threads
        }
        for thread in toJoin { thread.join() }
    }

    private func workerLoop(_ index: Int) {
        mutex.lock()
        while true {
            while queued == 0 && !stopping {
                workAvailable.wait(mutex)
            }
            if stopping && (queued == 0 || discardOnStop) {
                while queued > 0 { _ = dequeue() }
                mutex.unlock()
                return
            }
            let job = dequeue()
            busy += 1
            jobStarted[index] = max(1, monotonicNanoseconds())
            mutex.unlock()
            job()
            mutex.lock()
            busy -= 1
            jobStarted[index] = 0
        }
    }

    /// Caller holds `mutex` and has checked `queued > 0`.
    private func dequeue() -> Job {
        let job = ring[head]!
        ring[head] = nil
        head = (head + 1) % ring.count
        queued -= 1
        return job
    }
}
