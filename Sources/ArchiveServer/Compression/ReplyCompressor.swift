import CZlib

/// Compresses a reply body in a content coding as it is written, piece by piece, so the reply
/// exists only compressed (see `ReplyBuffer`).
///
/// Replies shorter than `minimumSize` are not worth a coding: the first bytes are held back
/// until that many have come, and a reply that ends sooner is sent as it is (`finish` then says
/// `.identity`).
///
/// Level 1, zlib's fastest: a conversion writes its reply faster than the default level 6
/// compresses, so at level 6 compressing would take longer than the conversion itself.
/// Level 1 gives up a few points of size on JSON, and on binary plists level 6 is both slower
/// and larger (`scripts/bench/bench_compression.sh`; docs/benchmarks.md, "Reply compression").
final class ReplyCompressor {
    static let level: Int32 = 1
    /// Replies below this many bytes are sent uncompressed.
    static let minimumSize = 1024
    /// Output produced per call into zlib.
    private static let chunkSize = 64 << 10

    let coding: ContentCoding
    private var held: [UInt8] = []
    private var zlib: ZlibStream?
    private var chunk: [UInt8] = []
    /// Set when zlib could not start or failed: the reply is then unusable.
    private(set) var failed = false

    init(coding: ContentCoding) {
        precondition(coding != .identity, "identity needs no compressor")
        self.coding = coding
    }

    /// Whether compression has started (the reply passed `minimumSize`): the zlib state exists.
    var started: Bool { zlib != nil }

    /// Takes the next piece of the reply; hands compressed output, when there is some, to `emit`.
    /// `starting` is called once, just before zlib's state is made (its memory,
    /// `ZlibStream.deflateStateBytes`, can be reserved there); false leaves the reply unusable.
    func write(_ piece: UnsafeBufferPointer<UInt8>, starting: () -> Bool, emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard !failed else { return }
        if zlib == nil {
            held.append(contentsOf: piece)
            guard held.count >= Self.minimumSize else { return }
            guard starting(), let stream = ZlibStream(.deflate(level: Self.level), windowBits: coding.windowBits()) else {
                failed = true
                return
            }
            zlib = stream
            chunk = [UInt8](repeating: 0, count: Self.chunkSize)
            let first = held
            held = []
            first.withUnsafeBufferPointer { deflate($0, mode: Z_NO_FLUSH, emit: emit) }
            return
        }
        deflate(piece, mode: Z_NO_FLUSH, emit: emit)
    }

    /// Starts zlib before the first write, without waiting for `minimumSize` bytes: for a reply
    /// whose coding is announced before its body is known (a streamed reply, `StreamedLines`).
    /// False when zlib cannot start.
    func startNow() -> Bool {
        precondition(held.isEmpty, "a compressor starts now only before its first write")
        guard !failed, zlib == nil else { return !failed }
        guard let stream = ZlibStream(.deflate(level: Self.level), windowBits: coding.windowBits()) else {
            failed = true
            return false
        }
        zlib = stream
        chunk = [UInt8](repeating: 0, count: Self.chunkSize)
        return true
    }

    /// Hands `emit` everything written so far, compressed, ending on a byte boundary
    /// (`Z_SYNC_FLUSH`): a client inflating the stream reads all of it now. Costs a few bytes
    /// of output; once per line of a streamed reply. Only once started (`startNow`).
    func flush(emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard !failed, zlib != nil else { return }
        deflate(UnsafeBufferPointer(start: nil, count: 0), mode: Z_SYNC_FLUSH, emit: emit)
    }

    /// Most compressed bytes `bytes` of input and a flush can come to at level 1 (stored
    /// blocks at worst, five bytes each per 16 KiB, and the header, flush and trailer): what a
    /// streamed line reserves before it is compressed (`ReplyBuffer.reserveAhead`).
    static func bound(_ bytes: Int) -> Int {
        bytes + bytes / 1_024 + 64
    }

    /// Ends the reply: the rest of the compressed stream goes to `emit`, or, for a reply that
    /// never reached `minimumSize`, the bytes held back. Returns the coding the reply is in.
    func finish(emit: (UnsafeBufferPointer<UInt8>) -> Void) -> ContentCoding {
        guard !failed else { return coding }
        guard zlib != nil else {
            held.withUnsafeBufferPointer { if !$0.isEmpty { emit($0) } }
            held = []
            return .identity
        }
        deflate(UnsafeBufferPointer(start: nil, count: 0), mode: Z_FINISH, emit: emit)
        zlib = nil
        return coding
    }

    /// `mode`: `Z_NO_FLUSH`, `Z_SYNC_FLUSH` or `Z_FINISH`.
    private func deflate(_ input: UnsafeBufferPointer<UInt8>, mode: Int32, emit: (UnsafeBufferPointer<UInt8>) -> Void) {
        guard let zlib else { return }
        let finishing = mode == Z_FINISH
        let stream = zlib.pointer
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
        stream.pointee.avail_in = UInt32(input.count)
        chunk.withUnsafeMutableBufferPointer { out in
            while true {
                stream.pointee.next_out = out.baseAddress
                stream.pointee.avail_out = UInt32(out.count)
                let status = CZlib.deflate(stream, mode)
                let produced = out.count - Int(stream.pointee.avail_out)
                if produced > 0 { emit(UnsafeBufferPointer(rebasing: out[0..<produced])) }
                switch status {
                case Z_STREAM_END:
                    return
                case Z_OK, Z_BUF_ERROR:
                    // Not finishing: done once zlib took all the input and had room to spare.
                    // Finishing: zlib keeps returning Z_OK until the stream's end is written.
                    if !finishing, stream.pointee.avail_in == 0, stream.pointee.avail_out > 0 { return }
                    if status == Z_BUF_ERROR, produced == 0 {
                        failed = true
                        return
                    }
                default:
                    failed = true
                    return
                }
            }
        }
    }

    /// `bytes` whole in `coding`, for the small replies made on the loop (metrics, the API
    /// description); nil when the reply is better sent as it is (shorter than `minimumSize`)
    /// or zlib failed.
    static func compress(_ bytes: [UInt8], in coding: ContentCoding) -> [UInt8]? {
        guard coding != .identity, bytes.count >= minimumSize else { return nil }
        let compressor = ReplyCompressor(coding: coding)
        var output: [UInt8] = []
        bytes.withUnsafeBufferPointer { piece in
            compressor.write(piece, starting: { true }, emit: { output.append(contentsOf: $0) })
        }
        let used = compressor.finish { output.append(contentsOf: $0) }
        return compressor.failed || used == .identity ? nil : output
    }
}
