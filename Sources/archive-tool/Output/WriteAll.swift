#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes `text` whole to `descriptor` (stdout, stderr), retrying short and interrupted writes;
/// a failure is ignored (there is nowhere left to report it).
func writeAll(_ text: String, to descriptor: Int32) {
    Array(text.utf8).withUnsafeBytes { _ = writeAll($0, to: descriptor) }
}

/// Writes the whole buffer; returns errno on failure (0 on success).
func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32 {
    var offset = 0
    while offset < buffer.count {
        let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            return errno
        }
        offset += written
    }
    return 0
}
