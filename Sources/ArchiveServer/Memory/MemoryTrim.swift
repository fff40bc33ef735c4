#if canImport(Glibc)
import CMalloc
#endif

/// When to hand memory that conversions freed back to the system (`malloc_trim`, which the
/// worker calls after its reply is on its way).
///
/// A large conversion frees millions of small blocks; glibc keeps them in the arenas of the
/// threads that allocated them (a worker's for its tables, a loop's for the body it read), so a
/// process that once converted a big archive would stay big, past what the memory budget counts.
/// `malloc_trim` gives the free pages back, but it locks every arena in turn, the loops' too,
/// for as long as it takes: after a 47 MB decode a loop waited on it for a hundred milliseconds
/// and more, and `/healthz` with it (docs/benchmarks.md, "Service under load"). So it runs only
/// when what glibc keeps is worth that: when the process holds more than an eighth of the
/// budget beyond what requests have reserved. The process then stays within the budget and an
/// eighth of it besides its own baseline: under a container limit whose three quarters are the
/// budget (the default), well inside the limit.
enum MemoryTrim {
    /// Conversions of bodies from this size on may be followed by a trim; smaller ones free too
    /// little to matter.
    static let bodyThreshold = 1 << 20

    /// After a conversion of `bodyBytes`: whether to trim, i.e. whether the process holds more
    /// than `budget`'s reservations and an eighth of its capacity.
    static func isDue(afterBodyOf bodyBytes: Int, budget: MemoryBudget) -> Bool {
        guard bodyBytes >= bodyThreshold, let resident = ProcessStatistics.memoryBytes()?.resident else { return false }
        return resident - budget.snapshot.reserved > budget.capacity / 8
    }

    /// Hands the free pages of every arena back to the system (glibc), when `isDue`.
    static func trim(afterBodyOf bodyBytes: Int, budget: MemoryBudget) {
        #if canImport(Glibc)
        if isDue(afterBodyOf: bodyBytes, budget: budget) { malloc_trim(0) }
        #endif
    }
}
