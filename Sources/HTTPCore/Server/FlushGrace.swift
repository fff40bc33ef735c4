/// How long a drained loop waits for replies still being written, once no work is left: while
/// their clients keep taking output it waits (up to the drain's deadline, which the loop keeps);
/// once none has taken any for `nanos`, it gives up. Progress is the replies' output the clients
/// have not taken falling (`GuardedSocket.outputNotTaken`), not the socket taking a write: a
/// kernel send buffer of megabytes takes no write for seconds while a slow client reads it.
/// Pure: times and byte counts in, a decision out.
struct FlushGrace {
    /// How long without progress a client is given: a client reading at all takes some output
    /// within it; one that stopped is not waited for past it.
    let nanos: UInt64
    private var end: UInt64?
    private var lastNotTaken = 0

    init(nanos: UInt64 = 1_000_000_000) {
        self.nanos = nanos
    }

    /// Whether to give up at `now`, when the replies' clients have not taken `notTaken` bytes.
    /// The first check starts the grace; a check that finds less output untaken than the one
    /// before starts it again.
    mutating func expired(now: UInt64, notTaken: Int) -> Bool {
        defer { lastNotTaken = notTaken }
        guard let end, notTaken >= lastNotTaken else {
            end = now + nanos
            return false
        }
        return now >= end
    }
}
