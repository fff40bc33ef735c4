#if canImport(Glibc)
import Glibc

/// The stack size of the calling thread, as glibc reports it (`pthread_getattr_np`, a GNU
/// extension the Glibc module does not export, found with `dlsym`); nil if it cannot tell.
///
/// glibc may hand a thread a cached stack larger than the one asked for (up to about four
/// times), never a smaller one: a test checks `requested <= size`, not equality.
public func currentThreadStackSize() -> Int? {
    typealias GetAttr = @convention(c) (pthread_t, UnsafeMutablePointer<pthread_attr_t>) -> Int32
    guard let symbol = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "pthread_getattr_np") else { return nil }
    let getattr = unsafeBitCast(symbol, to: GetAttr.self)
    var attributes = pthread_attr_t()
    guard getattr(pthread_self(), &attributes) == 0 else { return nil }
    defer { pthread_attr_destroy(&attributes) }
    var size = 0
    guard pthread_attr_getstacksize(&attributes, &size) == 0 else { return nil }
    return size
}
#endif
