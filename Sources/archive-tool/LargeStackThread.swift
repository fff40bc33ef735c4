import ArchiveCodec

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// What a conversion produced: output bytes or the codec's error.
typealias Conversion = Result<[UInt8], CodecError>

/// A conversion handed to the thread, which stores its result; joined before it is read.
private final class Job: @unchecked Sendable {
    let body: () -> Conversion
    var result: Conversion?
    init(_ body: @escaping () -> Conversion) { self.body = body }
}

/// Runs `body` on a new thread with `stackSize` bytes of stack and returns its result.
///
/// The converters recurse once per nesting level, so the tool gives them a stack of a known
/// size (the main thread's is whatever `ulimit -s` says) and checks depth against it first.
/// The stack is reserved address space: pages are only committed as deep inputs touch them.
func onLargeStack(_ stackSize: Int, _ body: @escaping () -> Conversion) -> Conversion {
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
        job.result = job.body()
        return nil
    }, context)
    guard created == 0 else {
        Unmanaged<Job>.fromOpaque(context).release()
        fatalError("pthread_create with a \(stackSize)-byte stack failed: \(created)")
    }
    #if canImport(Glibc)
    precondition(pthread_join(thread, nil) == 0, "pthread_join failed")
    #else
    precondition(pthread_join(thread!, nil) == 0, "pthread_join failed")
    #endif
    return job.result!
}
