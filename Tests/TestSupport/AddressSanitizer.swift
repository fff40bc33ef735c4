#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Whether the tests run under AddressSanitizer, whose allocator keeps freed blocks in
/// quarantine: memory grows from run to run of the same work, and timings with it, so tests
/// that compare times allow it more.
public enum AddressSanitizer {
    /// Its runtime is in the process.
    public static let isOn: Bool = {
        guard let process = dlopen(nil, RTLD_NOW) else { return false }
        defer { dlclose(process) }
        return dlsym(process, "__asan_init") != nil
    }()
}
