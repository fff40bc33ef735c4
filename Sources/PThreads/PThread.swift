#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A joinable thread, optionally with a stack of an exact size.
///
/// Raw pthreads rather than `Thread` or Dispatch because the stack size is what makes a depth
/// limit safe: `Thread.stackSize` silently ignores small values, and Dispatch threads have
/// whatever stack the system gives them. The converters recurse once per nesting level, so a
/// thread that runs them must have the stack their depth limit was computed for.
///
/// A stack is reserved address space: its pages are committed only as deep inputs touch them.
///
/// Every started thread must be joined exactly once; a thread never joined leaks its stack.
public struct PThread: @unchecked Sendable {
    #if canImport(Glibc)
    private let handle: pthread_t
    #else
    private let handle: pthread_t?
    #endif

    /// `bytes` rounded up to whole pages: the stack a thread started with `stackSize: bytes` gets.
    public static func stackSize(roundingUp bytes: Int) -> Int {
        let page = max(4096, Int(sysconf(Int32(_SC_PAGESIZE))))
        return (bytes + page - 1) / page * page
    }

    /// Starts `body` on a new joinable thread. With `stackSize`, the thread's stack is that many
    /// bytes rounded up to whole pages (`stackSize(roundingUp:)`); without, the system default.
    ///
    /// `name` is the thread's name where the system shows one (`top -H`, `ps -L`, gdb, perf):
    /// Linux keeps its first `maximumNameBytes` bytes. A name the system refuses leaves the
    /// thread unnamed; it is a diagnostic aid, never a reason to fail.
    ///
    /// `body` runs on another thread: whatever it shares with the caller must be safe to share,
    /// or be read by the caller only after `join()`.
    public static func start(name: String? = nil, stackSize: Int? = nil, _ body: @escaping () -> Void) throws(PThreadError) -> PThread {
        var attributes = pthread_attr_t()
        var rc = pthread_attr_init(&attributes)
        guard rc == 0 else { throw PThreadError(call: "pthread_attr_init", code: rc) }
        defer { pthread_attr_destroy(&attributes) }
        if let stackSize {
            precondition(stackSize > 0, "a thread's stack size must be positive")
            let rounded = Self.stackSize(roundingUp: stackSize)
            rc = pthread_attr_setstacksize(&attributes, rounded)
            guard rc == 0 else { throw PThreadError(call: "pthread_attr_setstacksize(\(rounded))", code: rc) }
        }
        rc = pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_JOINABLE))
        guard rc == 0 else { throw PThreadError(call: "pthread_attr_setdetachstate", code: rc) }

        let context = Unmanaged.passRetained(Body(name: name, body)).toOpaque()
        #if canImport(Glibc)
        var handle = pthread_t()
        #else
        var handle: pthread_t?
        #endif
        rc = pthread_create(
            &handle, &attributes,
            { context in
                let body = Unmanaged<Body>.fromOpaque(context!).takeRetainedValue()
                body.nameThisThread()
                body.run()
                return nil
            }, context)
        guard rc == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            throw PThreadError(call: "pthread_create", code: rc)
        }
        return PThread(handle: handle)
    }

    /// The longest thread name Linux keeps, in bytes (16 with its terminating NUL).
    public static let maximumNameBytes = 15

    /// Waits for the thread to finish. Call once, never from the thread itself.
    public func join() {
        #if canImport(Glibc)
        let rc = pthread_join(handle, nil)
        #else
        let rc = pthread_join(handle!, nil)
        #endif
        precondition(rc == 0, "pthread_join failed with \(rc)")
    }

    /// The closure handed to the new thread: retained by `start`, released by the thread.
    private final class Body {
        let name: String?
        let run: () -> Void
        init(name: String?, _ run: @escaping () -> Void) {
            self.name = name
            self.run = run
        }

        /// Names the calling thread, before its body runs (so the body sees its name), through
        /// `/proc/thread-self/comm`: what `pthread_setname_np` does for the calling thread, which
        /// Swift's Glibc module does not declare (it is a GNU extension).
        func nameThisThread() {
            guard let name else { return }
            #if os(Linux)
            let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
            guard fd >= 0 else { return }
            defer { close(fd) }
            let bytes = Array(name.utf8.prefix(PThread.maximumNameBytes))
            _ = bytes.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            #endif
        }
    }
}
