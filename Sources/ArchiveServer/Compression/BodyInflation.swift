import ArchiveCodec
import CZlib

/// Inflates a gzip- or deflate-coded request body on a worker, before the conversion reads it.
///
/// `--max-body-size` bounds the inflated body, as it bounds a plain one: a body of a kilobyte
/// can inflate to gigabytes (a compression bomb), so inflation stops at the first byte past the
/// limit. The memory budget sees the inflated body grow (`reserve`), before it is allocated.
enum BodyInflation {
    enum Failure: Error, Equatable {
        /// The body inflates past `limit` bytes.
        case tooLarge(limit: Int)
        /// The budget could not grant `needed` bytes in all.
        case overBudget(needed: Int)
        /// The bytes are not a complete stream of the coding: what is wrong with them.
        case malformed(String)
        /// zlib could not get memory for its state.
        case outOfMemory
        /// The conversion's deadline (`ConversionDeadline`) passed while inflating.
        case timedOut
    }

    /// Bytes inflated per call into zlib, then appended to the body.
    private static let chunkSize = 64 << 10

    /// The inflated body. `reserve(total)` is asked before the body's storage grows, with the
    /// bytes the compressed and inflated bodies then hold in all; false refuses the growth.
    ///
    /// gzip members may follow one another (RFC 1952 §2.2, as `cat a.gz b.gz` makes) and are
    /// inflated in turn; for `deflate` both the zlib wrapper (RFC 1950, what the name means)
    /// and a bare deflate stream (RFC 1951, which some clients send) are read. Any byte after
    /// the end of the stream, or a stream that ends early, makes the body malformed.
    static func inflate(
        _ compressed: [UInt8], coding: ContentCoding, limit: Int,
        reserve: (Int) -> Bool
    ) throws(Failure) -> [UInt8] {
        precondition(coding != .identity, "an identity body is not inflated")
        let raw = coding == .deflate && !ContentCoding.hasZlibHeader(compressed)
        guard let zlib = ZlibStream(.inflate, windowBits: coding.windowBits(raw: raw)) else { throw .outOfMemory }
        let stream = zlib.pointer

        var capacity = min(limit, initialCapacity(compressed, coding: coding))
        guard reserve(compressed.count + capacity) else { throw .overBudget(needed: compressed.count + capacity) }
        var output: [UInt8] = []
        output.reserveCapacity(capacity)
        var scratch = [UInt8](repeating: 0, count: chunkSize)

        var failure: Failure?
        compressed.withUnsafeBufferPointer { input in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.pointee.avail_in = UInt32(input.count)
            while failure == nil {
                // One chunk per trip: the clock is read once per 64 KiB inflated.
                if ConversionDeadline.hasPassed {
                    failure = .timedOut
                    break
                }
                let status = scratch.withUnsafeMutableBufferPointer { chunk in
                    stream.pointee.next_out = chunk.baseAddress
                    stream.pointee.avail_out = UInt32(chunk.count)
                    return CZlib.inflate(stream, Z_NO_FLUSH)
                }
                let produced = chunkSize - Int(stream.pointee.avail_out)
                if produced > 0 {
                    let needed = output.count + produced
                    if needed > limit {
                        failure = .tooLarge(limit: limit)
                        break
                    }
                    if needed > capacity {
                        // While the array moves, the old and the new storage both exist.
                        let grown = min(limit, max(capacity * 2, needed))
                        guard reserve(compressed.count + capacity + grown) else {
                            failure = .overBudget(needed: compressed.count + capacity + grown)
                            break
                        }
                        output.reserveCapacity(grown)
                        capacity = grown
                    }
                    output.append(contentsOf: scratch[0..<produced])
                }
                switch status {
                case Z_OK:
                    continue
                case Z_STREAM_END:
                    let left = Int(stream.pointee.avail_in)
                    if left == 0 { return }
                    let next = input.count - left
                    if coding == .gzip, left >= 2, input[next] == 0x1F, input[next + 1] == 0x8B {
                        inflateReset(stream)
                        continue
                    }
                    failure = .malformed("\(left) bytes follow the end of the \(coding.rawValue) stream")
                case Z_BUF_ERROR:
                    // No progress was possible: with room for output, only for want of input.
                    failure = .malformed("the \(coding.rawValue) stream ends early (is the body cut short?)")
                case Z_MEM_ERROR:
                    failure = .outOfMemory
                case Z_NEED_DICT:
                    failure = .malformed("the deflate stream needs a preset dictionary, which HTTP cannot supply")
                default:
                    failure = .malformed("the \(coding.rawValue) stream is corrupt: \(zlib.message ?? "invalid data")")
                }
            }
        }
        if let failure { throw failure }
        return output
    }

    /// The first storage for the inflated body: a gzip stream's trailer states its size (ISIZE,
    /// modulo 2^32, of the last member), so an honest single-member body is allocated once;
    /// otherwise four times the compressed size, which typical JSON and plists reach, then
    /// doubling. ISIZE is believed only as far as deflate can expand (`maximumExpansion`
    /// times the compressed bytes), and never past `limit`; a lying one costs at most that
    /// much reserved, untouched capacity.
    private static func initialCapacity(_ compressed: [UInt8], coding: ContentCoding) -> Int {
        let guess = max(chunkSize, compressed.count * 4)
        guard coding == .gzip, compressed.count >= 18 else { return guess }
        let end = compressed.count
        let stated =
            Int(compressed[end - 4]) | Int(compressed[end - 3]) << 8
            | Int(compressed[end - 2]) << 16 | Int(compressed[end - 1]) << 24
        return stated > 0 ? min(stated, compressed.count * maximumExpansion) : guess
    }

    /// The most bytes one byte of a deflate stream can stand for: a 258-byte match costs at
    /// least two bits, so no stream inflates to more than 1,032 times its size (zlib's
    /// technical details). A stated size above this is a lie.
    static let maximumExpansion = 1_032
}
