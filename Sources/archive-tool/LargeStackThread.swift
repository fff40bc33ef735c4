import ArchiveCodec
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Work handed to the thread; it stores its own result (joined before that is read).
private final class Job: @unchecked Sendable {
    let body: () -> Void
    init(_ body: @escaping () -> Void) { self.body = body }
}

private final class ResultBox<T>: @unchecked Sendable {
    var value: T?
}

#if canImport(Glibc)
typealias ThreadHandle = pthread_t
#else
typealias ThreadHandle = pthread_t?
#endif

/// Starts `body` on a new thread with `stackSize` bytes of stack; `join` waits for it.
func startThread(stackSize: Int, _ body: @escaping () -> Void) -> ThreadHandle {
    let job = Job(body)
    var attributes = pthread_attr_t()
    precondition(pthread_attr_init(&attributes) == 0, "pthread_attr_init failed")
    defer { pthread_attr_destroy(&attributes) }
    let rc = pthread_attr_setstacksize(&attributes, stackSize)
    precondition(rc == 0, "pthread_attr_setstacksize(\(stackSize)) failed: \(rc)")
    #if canImport(Glibc)
    var thread = pthread_t()
    #else
    var thread: pthread_t?
    #endif
    let context = Unmanaged.passRetained(job).toOpaque()
    let created = pthread_create(&thread, &attributes, { context in
        let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
        job.body()
        return nil
    }, context)
    guard created == 0 else {
        Unmanaged<Job>.fromOpaque(context).release()
        fatalError("pthread_create with a \(stackSize)-byte stack failed: \(created)")
    }
    return thread
}

func join(_ thread: ThreadHandle) {
    #if canImport(Glibc)
    precondition(pthread_join(thread, nil) == 0, "pthread_join failed")
    #else
    precondition(pthread_join(thread!, nil) == 0, "pthread_join failed")
    #endif
}

/// Runs `body` on a new thread with `stackSize` bytes of stack and returns its result. The
/// calling thread meanwhile runs `whileRunning` (which must return once `body` is done,
/// such as writing out what `body` produces), then joins the thread.
///
/// The converters recurse once per nesting level, so the tool gives them a stack of a known
/// size (the main thread's is whatever `ulimit -s` says) and checks depth against it first.
/// The stack is reserved address space: pages are only committed as deep inputs touch them.
func onLargeStack<T>(_ stackSize: Int, whileRunning: () -> Void = {}, _ body: @escaping () -> T) -> T {
    let box = ResultBox<T>()
    let thread = startThread(stackSize: stackSize) { box.value = body() }
    whileRunning()
    join(thread)
    return box.value!
}

/// The tool's `Parallelism`: one thread per core (the calling thread and up to `width` − 1
/// started with `stackSize` bytes of stack, as a JSON writer's job recurses as deep as the
/// conversion thread's). Each takes the next job not yet taken until none is left, so a
/// pass cut into more jobs than cores keeps both cores busy when its parts take unequal
/// time. All are joined before returning.
func coreParallelism(stackSize: Int) -> Parallelism {
    let cores = min(max(Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), 1), 8)
    return Parallelism(width: cores) { jobs, job in
        withoutActuallyEscaping(job) { job in
            let shared = SharedJobs(job, count: jobs)
            let threads = (0..<max(min(jobs, cores) - 1, 0)).map { _ in startThread(stackSize: stackSize) { shared.runUntilDone() } }
            shared.runUntilDone()
            threads.forEach(join)
        }
    }
}

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
