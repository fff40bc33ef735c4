#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Saves the input being converted when the process dies of a signal (a Swift trap is
/// SIGILL or SIGTRAP, a stack overflow SIGSEGV), so every crash comes with its reproducer.
///
/// The handler only calls `open`, `write`, `close`, `signal` and `raise`, which are
/// async-signal-safe, and runs on its own stack so that it works after a stack overflow.
enum CrashReporter {
    nonisolated(unsafe) private static var path: UnsafeMutablePointer<CChar>?
    nonisolated(unsafe) private static var buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 16, alignment: 1)
    nonisolated(unsafe) private static var length = 0

    static func install(path: String) {
        self.path = strdup(path)
        let alternateSize = 1 << 16
        var alternate = stack_t()
        alternate.ss_sp = UnsafeMutableRawPointer.allocate(byteCount: alternateSize, alignment: 16)
        alternate.ss_size = alternateSize
        alternate.ss_flags = 0
        precondition(sigaltstack(&alternate, nil) == 0, "sigaltstack failed")
        for signal in [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE] {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = CrashReporter.handle
            #else
            action.__sigaction_u.__sa_handler = CrashReporter.handle
            #endif
            action.sa_flags = Int32(SA_ONSTACK) | Int32(bitPattern: UInt32(SA_RESETHAND))
            sigemptyset(&action.sa_mask)
            precondition(sigaction(signal, &action, nil) == 0, "sigaction failed")
        }
    }

    /// Copies `input` where the handler can find it (called before each conversion).
    static func remember(_ input: [UInt8]) {
        if input.count > buffer.count {
            buffer.deallocate()
            buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: input.count * 2, alignment: 1)
        }
        input.withUnsafeBytes { buffer.copyMemory(from: $0) }
        length = input.count
    }

    private static let handle: @convention(c) (Int32) -> Void = { signal in
        if let path = CrashReporter.path {
            let file = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
            if file >= 0 {
                _ = write(file, CrashReporter.buffer.baseAddress, CrashReporter.length)
                close(file)
            }
        }
        raise(signal)  // SA_RESETHAND restored the default action: die with the same signal
    }
}
