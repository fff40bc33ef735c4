import CZlib

/// One zlib stream, inflating or deflating, with its `z_stream` at a fixed address: zlib keeps a
/// pointer back to the `z_stream` it was started on and refuses any call made on a copy, so the
/// struct lives in its own allocation rather than in a Swift variable that may move.
///
/// Thread contract: one thread at a time (a worker inflating a body or compressing a reply).
final class ZlibStream {
    enum Direction {
        case inflate
        /// `level`: 1 (fastest) to 9 (smallest).
        case deflate(level: Int32)
    }

    /// The stream itself; callers set `next_in`/`avail_in` and `next_out`/`avail_out`.
    let pointer: UnsafeMutablePointer<z_stream>
    private let direction: Direction

    /// Memory zlib's deflate state takes at window bits 15 and memory level 8: zconf.h gives
    /// (1 << (windowBits + 2)) + (1 << (memLevel + 9)) bytes "plus a few kilobytes".
    static let deflateStateBytes = 272 << 10

    /// nil when zlib cannot get memory for its state (`Z_MEM_ERROR`); `windowBits` as
    /// `ContentCoding.windowBits(raw:)` gives it.
    init?(_ direction: Direction, windowBits: Int32) {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: z_stream())
        self.direction = direction
        let status =
            switch direction {
            case .inflate: archive_service_inflate_init(pointer, windowBits)
            case .deflate(let level): archive_service_deflate_init(pointer, level, windowBits)
            }
        guard status == Z_OK else {
            pointer.deallocate()
            return nil
        }
    }

    deinit {
        switch direction {
        case .inflate: inflateEnd(pointer)
        case .deflate: deflateEnd(pointer)
        }
        pointer.deallocate()
    }

    /// The library's message for the last error, if it left one.
    var message: String? { pointer.pointee.msg.map { String(cString: $0) } }
}
