import ArchiveCodec
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The tool's `Parallelism`: one thread per core (the calling thread and up to `width` − 1
/// started with `stackSize` bytes of stack, as a JSON writer's job recurses as deep as the
/// conversion thread's). Each takes the next job not yet taken until none is left, so a
/// pass cut into more jobs than cores keeps both cores busy when its parts take unequal
/// time. All are joined before returning.
func coreParallelism(stackSize: Int) -> Parallelism {
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

/// The cores the tool spreads work over: the machine's online cores, at least 1. Read once:
/// glibc reads `/sys/devices/system/cpu/online` at every ask, and a batch asks per file.
func usableCores() -> Int { onlineCores }

private let onlineCores = max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1)

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
