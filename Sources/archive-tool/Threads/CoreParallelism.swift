import ArchiveCodec
import HostResources
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The tool's `Parallelism` for an input of `inputSize` bytes: one thread per core (the calling
/// thread and up to `width` − 1 started with `stackSize` bytes of stack, as a JSON writer's job
/// recurses as deep as the conversion thread's). Each takes the next job not yet taken until
/// none is left, so a pass cut into more jobs than cores keeps both cores busy when its parts
/// take unequal time. All are joined before returning.
///
/// An input smaller than two of the codec's smallest parts is `.serial`, without reading which
/// CPUs the process may use (a seventh of a small file's whole run): every pass splits
/// objects, entries or references, each at least a byte of the input (a nested payload's too,
/// its bytes being part of it), so no pass of it could make a second job.
func coreParallelism(stackSize: Int, inputSize: Int) -> Parallelism {
    guard inputSize >= 2 * Parallelism.serial.smallestPart else { return .serial }
    let cores = min(usableCores(), 8)
    return Parallelism(width: cores) { jobs, job in
        withoutActuallyEscaping(job) { job in
            let shared = SharedJobs(job, count: jobs)
            let threads = (0..<max(min(jobs, cores) - 1, 0)).map { _ in startThread(stackSize: stackSize) { shared.runUntilDone() } }
            shared.runUntilDone()
            for thread in threads { thread.join() }
        }
    }
}

/// The cores the tool spreads work over: the CPUs this process may use (`UsableCPUs`: its
/// affinity mask, fewer when the container's CPU quota is lower), at least 1 — so a batch in a
/// container limited to 2 CPUs on a 64-core node runs 2 jobs at once, not 64. Read once per
/// process (a batch asks per file).
func usableCores() -> Int { UsableCPUs.current.count }

/// Jobs `0..<count` of one `Parallelism.run`, taken in order by whichever thread is free;
/// the codec gives each job its own result slot.
private final class SharedJobs: @unchecked Sendable {
    private let body: (Int) -> Void
    private let count: Int
    private let next = Atomic<Int>(0)

    init(_ body: @escaping (Int) -> Void, count: Int) {
        self.body = body
        self.count = count
    }

    func runUntilDone() {
        while true {
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < count else { return }
            body(index)
        }
    }
}
