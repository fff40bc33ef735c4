import ArchiveCodec

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

/// The tool's `Parallelism`: one job per core, job 0 on the calling thread and each other
/// job on a thread of its own with `stackSize` bytes of stack (a JSON writer's job recurses
/// as deep as the conversion thread's), all joined before returning.
func coreParallelism(stackSize: Int) -> Parallelism {
    let cores = Int(sysconf(Int32(_SC_NPROCESSORS_ONLN)))
    return Parallelism(width: min(max(cores, 1), 8)) { jobs, job in
        withoutActuallyEscaping(job) { job in
            let shared = SharedJob(job)
            let threads = (1..<max(jobs, 1)).map { index in startThread(stackSize: stackSize) { shared.body(index) } }
            if jobs > 0 { job(0) }
            threads.forEach(join)
        }
    }
}

/// A job closure called from several threads; the codec gives each call its own result slot.
private final class SharedJob: @unchecked Sendable {
    let body: (Int) -> Void
    init(_ body: @escaping (Int) -> Void) { self.body = body }
}
