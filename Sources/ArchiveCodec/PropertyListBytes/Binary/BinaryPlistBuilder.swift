/// Builds a binary property list (`bplist00`) as its values arrive: each value is written
/// out at once, in arrival order, and its index is its object number. Nothing of a value is
/// kept besides its bytes and its offset, so building takes about the memory of the result.
/// Given a sink, the builder hands the file over in pieces of about a megabyte instead, and
/// keeps only the strings and data it interns (to find repeats): the result never sits in
/// memory whole.
///
/// References are written 4 bytes wide while building, because the object count is not
/// known until the end; without a sink, `finish` narrows them in place to the width
/// Apple's writer would choose (1 or 2 bytes) when the count allows (with one, they stay 4
/// bytes: readers take any width). Strings that are pure ASCII are written as ASCII,
/// others as UTF-16, and integers take the smallest width Apple's reader accepts, as
/// `BinaryPlistWriter` does.
struct BinaryPlistBuilder: PlistBuilding {
    typealias Sink = (UnsafeBufferPointer<UInt8>) -> Void

    private var out: [UInt8] = Array("bplist00".utf8)
    private let sink: Sink?
    /// `sink != nil`, kept apart: reading an optional closure costs a retain and a release.
    private let isStreaming: Bool
    /// Bytes handed to the sink so far: `out` holds the file from here on.
    private var flushed = 0
    /// Start of each object in the file.
    private var offsets: [UInt32] = []
    /// Strings and data, by marker and payload (one table: the marker is compared too). The
    /// table's values index `interned`.
    private var payloads = ByteStringTable()
    /// Each interned string or data: its object, and where its bytes (marker first) are in
    /// `out` (without a sink) or in `kept` (with one).
    private var interned: [(object: UInt32, position: UInt32)] = []
    /// The bytes of every interned object, when `out` does not keep them.
    private var kept: [UInt8] = []
    /// Short ASCII strings met lately, found without hashing (sized by `reserve`).
    private var recentStrings = ShortStringCache()
    private var scalars = ScalarTable()
    private var falseObject = UInt32.max
    private var trueObject = UInt32.max
    /// Object of each UID value in the direct table (`UInt32.max` = none yet). UIDs are the
    /// most frequent scalar by far; an array lookup saves hashing each one. The value indexes
    /// the table and a plain plist's `{"$uid": n}` chooses it, so a value goes there only
    /// below `directUIDBound`, which grows with the file: the table stays within a few bytes
    /// per object, and a sparse value is hashed like other scalars.
    private var uidObjects: [UInt32] = []
    private static let directUIDLimit: UInt64 = 1 << 24
    /// UIDs below it take the direct table (never past `directUIDLimit`): 1,024 at first, then
    /// twice the objects when a larger UID comes, or the values `reserve` announced (an
    /// archive's UIDs number its entries, each an object or more, so its own stay there). A
    /// stored bound: the common miss compares once.
    private var directUIDBound: UInt64 = 1024
    /// A new UID below it goes straight to the direct table: `directUIDBound`, or 0 once a UID
    /// below `directUIDLimit` was hashed (then `otherUID` asks the hash table first).
    private var freshUIDBound: UInt64 = 1024
    /// UTF-16 big-endian bytes of the string being interned, when it is not ASCII.
    private var utf16: [UInt8] = []

    private static let zeros = [UInt8](filledWith: 0, count: 4096)

    /// Offsets and references are 32-bit while building.
    static let maximumSize = Int(UInt32.max) - 1

    /// A sink takes pieces once `out` holds this much.
    static let pieceSize = 1 << 20

    /// The most object bytes this plist may hold (the offset table and trailer come on top);
    /// past it `begin` throws `limitExceeded`.
    private let limit: Int
    /// Where `begin` next reads the clock (`ConversionDeadline`): every `pollBytes` of
    /// objects, and never past `limit`, so the one comparison per object that guards the limit
    /// also paces the deadline.
    private var nextPoll = 0
    private static let pollBytes = 64 << 10

    /// Without a sink, `finish` returns the whole file; with one, the file goes to `sink`.
    /// `limit`: the caller's bound on the file (`KeyedArchive.maximumOutputSize`).
    init(sink: Sink? = nil, limit: Int = BinaryPlistBuilder.maximumSize) {
        self.sink = sink
        isStreaming = sink != nil
        self.limit = min(limit, Self.maximumSize)
    }

    mutating func reserve(values: Int, bytes: Int) {
        // Estimates, capped: a reservation is address space the system must agree to lend,
        // and past 1 GiB growing by doubling costs little next to the work.
        offsets.reserveCapacity(min(values, 1 << 28))
        interned.reserveCapacity(min(values, 1 << 26))
        raiseDirectUIDBound(to: values)
        recentStrings = ShortStringCache(expectingValues: values)
        // An object takes a marker byte and a 4-byte reference from its container, at least.
        out.reserveCapacity(!isStreaming ? min(bytes + 5 * values, 1 << 30) : 2 * Self.pieceSize)
    }

    /// Starts a new object at the end of `out` and returns its index. The object before it
    /// is complete, so this is where a piece goes to the sink.
    private mutating func begin() throws(CodecError) -> UInt32 {
        if isStreaming, out.count >= Self.pieceSize, let sink { flush(sink) }
        if offsets.count >= Self.maximumSize || flushed + out.count >= nextPoll { try checkpoint() }
        offsets.append(UInt32(flushed + out.count))
        return UInt32(offsets.count - 1)
    }

    /// `begin`'s slow path: the limits, then the deadline (every encoder makes its objects
    /// here, so this one poll covers them all).
    @inline(never)
    private mutating func checkpoint() throws(CodecError) {
        let written = flushed + out.count
        guard offsets.count < Self.maximumSize, written < limit else {
            if limit < Self.maximumSize {
                throw CodecError(.limitExceeded, "the archive would be larger than \(limit) bytes for this JSON document: it asks for far more objects than its size suggests", limit: limit)
            }
            throw CodecError(.limitExceeded, "property list exceeds \(Self.maximumSize) objects or bytes", limit: Self.maximumSize)
        }
        try ConversionDeadline.check()
        nextPoll = min(limit, written + Self.pollBytes)
    }

    private mutating func flush(_ sink: Sink) {
        out.withUnsafeBufferPointer { sink($0) }
        flushed += out.count
        // An object far larger than a piece (a long array's references) grew `out`: let
        // that room go rather than keep it for the rest of the run.
        if out.capacity > 4 * Self.pieceSize {
            out = []
            out.reserveCapacity(2 * Self.pieceSize)
        } else {
            out.removeAll(keepingCapacity: true)
        }
    }

    // MARK: Strings and data

    mutating func string(_ utf8: UnsafeBufferPointer<UInt8>) throws(CodecError) -> UInt32 {
        // The cache holds ASCII strings only, so a text found there is ASCII.
        if let object = recentStrings.object(for: utf8) { return object }
        if BinaryPlistWriter.isASCII(utf8) {
            let object = try intern(utf8, high: 0x50, count: utf8.count)
            recentStrings.keep(utf8, object: object)
            return object
        }
        utf16.removeAll(keepingCapacity: true)
        BinaryPlistWriter.appendUTF16BigEndian(utf8, to: &utf16)
        var units: [UInt8] = []
        swap(&units, &utf16)
        defer { swap(&units, &utf16) }
        return try units.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in
            try intern(buffer, high: 0x60, count: buffer.count / 2)
        }
    }

    mutating func data(_ bytes: UnsafeBufferPointer<UInt8>) throws(CodecError) -> UInt32 {
        try intern(bytes, high: 0x40, count: bytes.count)
    }

    /// The object holding `payload` under marker `high` (data, ASCII or UTF-16 string),
    /// written now if no equal one was.
    private mutating func intern(_ payload: UnsafeBufferPointer<UInt8>, high: UInt8, count: Int) throws(CodecError) -> UInt32 {
        let hash = ByteStringTable.hash(payload) ^ UInt64(high)
        // The table is moved out while in use so the comparison can read `self` freely.
        var table = ByteStringTable()
        swap(&table, &payloads)
        defer { swap(&table, &payloads) }
        let newEntry = UInt32(truncatingIfNeeded: interned.count)
        // Read in place (a copy of `out` held here would make the next append copy it all).
        let found = interned.withUnsafeBufferPointer { interned in
            if isStreaming {
                return kept.withUnsafeBufferPointer { store in
                    Self.find(payload, high: high, count: count, hash: hash, in: &table, store: store, interned: interned, newEntry: newEntry)
                }
            }
            return out.withUnsafeBufferPointer { store in
                Self.find(payload, high: high, count: count, hash: hash, in: &table, store: store, interned: interned, newEntry: newEntry)
            }
        }
        if found != newEntry { return interned[Int(found)].object }
        let index = try begin()
        let start = out.count
        BinaryPlistWriter.appendMarker(high, count: count, to: &out)
        guard isStreaming else {
            interned.append((index, UInt32(start)))
            out.append(contentsOf: payload)
            return index
        }
        interned.append((index, UInt32(kept.count)))
        kept.append(contentsOf: out[start...])
        kept.append(contentsOf: payload)
        if payload.count >= Self.pieceSize, let sink {
            // A large payload goes to the sink as it is, rather than through `out`.
            flush(sink)
            sink(payload)
            flushed += payload.count
        } else {
            out.append(contentsOf: payload)
        }
        return index
    }

    /// The `interned` entry whose bytes in `store` are `payload` under marker `high`, or
    /// `newEntry`, inserted into `table`, when there is none.
    private static func find(
        _ payload: UnsafeBufferPointer<UInt8>, high: UInt8, count: Int, hash: UInt64, in table: inout ByteStringTable,
        store: UnsafeBufferPointer<UInt8>, interned: UnsafeBufferPointer<(object: UInt32, position: UInt32)>, newEntry: UInt32
    ) -> UInt32 {
        table.findOrInsert(
            hash: hash,
            equals: { entry in
                let (marker, start, stored) = header(store, at: Int(interned[Int(entry)].position))
                guard marker & 0xF0 == high, stored == count else { return false }
                guard let source = payload.baseAddress else { return true }
                return ByteStringTable.bytesEqual(store.baseAddress! + start, source, count: payload.count)
            },
            newValue: { newEntry })
    }

    /// Marker, payload start and element count of the object at `position`.
    private static func header(_ out: UnsafeBufferPointer<UInt8>, at position: Int) -> (marker: UInt8, start: Int, count: Int) {
        let marker = out[position]
        guard marker & 0x0F == 0x0F else { return (marker, position + 1, Int(marker & 0x0F)) }
        let size = 1 &<< Int(out[position + 1] & 0x0F)
        var count = 0
        for index in 0..<size { count = count << 8 | Int(out[position + 2 + index]) }
        return (marker, position + 2 + size, count)
    }

    func text(of index: UInt32) -> String {
        guard let entry = interned.first(where: { $0.object == index }) else { return "?" }
        return (!isStreaming ? out : kept).withUnsafeBufferPointer { out in
            let (marker, start, count) = Self.header(out, at: Int(entry.position))
            if marker & 0xF0 == 0x60 {
                let units = (0..<count).map { UInt16(out[start + 2 * $0]) << 8 | UInt16(out[start + 2 * $0 + 1]) }
                return String(decoding: units, as: UTF16.self)
            }
            return String(decoding: UnsafeBufferPointer(rebasing: out[start..<(start + count)]), as: UTF8.self)
        }
    }

    // MARK: Scalars

    private mutating func internScalar(_ kind: PlistKind, _ bits: UInt64, isUnsigned: Bool = false) throws(CodecError) -> UInt32 {
        let tag = kind.scalarTag(isUnsigned: isUnsigned)
        if let existing = scalars.find(tag: tag, bits: bits) { return existing }
        let index = try begin()
        switch kind {
        case .int:
            BinaryPlistWriter.appendInteger(bits, isUnsigned: isUnsigned, to: &out)
        case .real:
            out.append(0x23)
            appendBigEndian(bits)
        default:  // .date
            out.append(0x33)
            appendBigEndian(bits)
        }
        scalars.insert(tag: tag, bits: bits, value: index)
        return index
    }

    mutating func integer(_ value: PlistInteger) throws(CodecError) -> UInt32 {
        try internScalar(.int, value.bits, isUnsigned: value.isUnsigned)
    }

    mutating func real(_ value: Double) throws(CodecError) -> UInt32 { try internScalar(.real, value.bitPattern) }

    mutating func date(_ value: Double) throws(CodecError) -> UInt32 { try internScalar(.date, value.bitPattern) }

    mutating func bool(_ value: Bool) throws(CodecError) -> UInt32 {
        if value, trueObject != UInt32.max { return trueObject }
        if !value, falseObject != UInt32.max { return falseObject }
        let index = try begin()
        out.append(value ? 0x09 : 0x08)
        if value { trueObject = index } else { falseObject = index }
        return index
    }

    private mutating func raiseDirectUIDBound(to count: Int) {
        directUIDBound = max(directUIDBound, min(Self.directUIDLimit, UInt64(min(count, 1 << 28))))
        if freshUIDBound != 0 { freshUIDBound = directUIDBound }
    }

    mutating func uid(_ value: UInt64) throws(CodecError) -> UInt32 {
        let slot = Int(truncatingIfNeeded: value)
        if value < Self.directUIDLimit, slot < uidObjects.count, uidObjects[slot] != UInt32.max {
            return uidObjects[slot]
        }
        guard value < freshUIDBound else { return try otherUID(value) }
        let index = try writeUID(value)
        uidObjects.store(index, at: slot, filling: UInt32.max)
        return index
    }

    /// A new UID that `uid` does not put straight into the direct table: past its bound so
    /// far (raised to twice the objects written, then hashed if still past it), or any once
    /// a small UID was hashed (found there, or not hashed at all).
    @inline(never)
    private mutating func otherUID(_ value: UInt64) throws(CodecError) -> UInt32 {
        if value >= directUIDBound { raiseDirectUIDBound(to: 2 * offsets.count + 1024) }
        let direct = value < directUIDBound
        if !direct || freshUIDBound == 0, let existing = scalars.find(tag: PlistKind.uid.scalarTag(isUnsigned: false), bits: value) {
            return existing
        }
        let index = try writeUID(value)
        if direct {
            uidObjects.store(index, at: Int(value), filling: UInt32.max)
        } else {
            if value < Self.directUIDLimit { freshUIDBound = 0 }
            scalars.insert(tag: PlistKind.uid.scalarTag(isUnsigned: false), bits: value, value: index)
        }
        return index
    }

    /// A new UID object, in the fewest bytes.
    @inline(__always)
    private mutating func writeUID(_ value: UInt64) throws(CodecError) -> UInt32 {
        let index = try begin()
        let width = BinaryPlistWriter.byteWidth(value)
        out.append(0x80 | UInt8(width - 1))
        BinaryPlistWriter.appendBigEndian(value, size: width, to: &out)
        return index
    }

    @inline(__always)
    private mutating func appendBigEndian(_ value: UInt64) {
        withUnsafeBytes(of: value.bigEndian) { out.append(contentsOf: $0) }
    }

    // MARK: Containers

    mutating func array(_ elements: some Collection<UInt32>) throws(CodecError) -> UInt32 {
        let index = try begin()
        BinaryPlistWriter.appendMarker(0xA0, count: elements.count, to: &out)
        appendReferences(elements)
        return index
    }

    mutating func dict(keys: some Collection<UInt32>, values: some Collection<UInt32>) throws(CodecError) -> UInt32 {
        precondition(keys.count == values.count)
        let index = try begin()
        BinaryPlistWriter.appendMarker(0xD0, count: keys.count, to: &out)
        appendReferences(keys)
        appendReferences(values)
        return index
    }

    /// Keys first, then values, read from alternate places (no split copy first).
    mutating func dict(pairs: UnsafeBufferPointer<UInt32>) throws(CodecError) -> UInt32 {
        let count = pairs.count / 2
        let index = try begin()
        BinaryPlistWriter.appendMarker(0xD0, count: count, to: &out)
        let start = out.count
        appendZeros(8 * count)
        out.withUnsafeMutableBytes { bytes in
            for pair in 0..<count {
                bytes.storeBytes(of: pairs[2 * pair].bigEndian, toByteOffset: start + 4 * pair, as: UInt32.self)
                bytes.storeBytes(of: pairs[2 * pair + 1].bigEndian, toByteOffset: start + 4 * (count + pair), as: UInt32.self)
            }
        }
        return index
    }

    /// Appends 4-byte big-endian references (see `finish`): room is made first, then the
    /// references are stored.
    private mutating func appendReferences(_ references: some Collection<UInt32>) {
        let start = out.count
        appendZeros(4 * references.count)
        out.withUnsafeMutableBytes { bytes in
            var position = start
            for reference in references {
                bytes.storeBytes(of: reference.bigEndian, toByteOffset: position, as: UInt32.self)
                position += 4
            }
        }
    }

    /// Makes room for `count` bytes at the end of `out` by copying zeros (appending a
    /// repeated element goes a byte at a time).
    private mutating func appendZeros(_ count: Int) {
        var remaining = count
        Self.zeros.withUnsafeBufferPointer { zeros in
            while remaining > 0 {
                let length = min(remaining, zeros.count)
                out.append(contentsOf: UnsafeBufferPointer(rebasing: zeros[0..<length]))
                remaining -= length
            }
        }
    }

    // MARK: Finishing

    /// The complete file with `root` as its top object: returned, or without a sink, handed
    /// to the sink (then the result is empty). Without a sink, references narrow to the
    /// fewest bytes that address every object; offsets take the fewest that reach the table.
    consuming func finish(root: UInt32) -> [UInt8] {
        // What is kept for interning is not needed any more.
        payloads = ByteStringTable()
        kept = []
        interned = []
        scalars = ScalarTable()
        uidObjects = []
        let count = offsets.count
        let refSize = !isStreaming ? BinaryPlistWriter.byteWidth(UInt64(max(count - 1, 0))) : 4
        if refSize < 4 { narrowReferences(to: refSize) }
        let tableOffset = flushed + out.count
        let offsetSize = BinaryPlistWriter.byteWidth(UInt64(max(tableOffset, 1)))
        if !isStreaming { out.reserveCapacity(out.count + count * offsetSize + 32) }
        // The table in batches that fill a piece (all at once without a sink), each entry
        // stored in place rather than appended a byte at a time.
        var next = 0
        while next < offsets.count {
            let room = isStreaming ? max((Self.pieceSize - out.count) / offsetSize, 1) : offsets.count
            let batch = min(offsets.count - next, room)
            appendOffsets(next..<(next + batch), size: offsetSize)
            next += batch
            if isStreaming, out.count >= Self.pieceSize, let sink { flush(sink) }
        }
        out.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(refSize)])
        appendBigEndian(UInt64(count))
        appendBigEndian(UInt64(root))
        appendBigEndian(UInt64(tableOffset))
        guard let sink else { return out }
        flush(sink)
        return []
    }

    /// Appends the offsets of objects `range`, `size` bytes each, big-endian.
    private mutating func appendOffsets(_ range: Range<Int>, size: Int) {
        var position = out.count
        appendZeros(range.count * size)
        out.withUnsafeMutableBufferPointer { bytes in
            for index in range {
                let offset = UInt64(offsets[index])
                var shift = 8 * (size - 1)
                while shift >= 0 {
                    bytes[position] = UInt8(truncatingIfNeeded: offset &>> UInt64(shift))
                    position += 1
                    shift -= 8
                }
            }
        }
    }

    /// Rewrites every object front to back with `refSize`-byte references. Objects only
    /// shrink, so each moves down to where the previous one ended, never over bytes still
    /// to be read.
    private mutating func narrowReferences(to refSize: Int) {
        let end = out.count
        var written = 8
        out.withUnsafeMutableBufferPointer { bytes in
            let raw = UnsafeMutableRawPointer(bytes.baseAddress!)
            for index in offsets.indices {
                let position = Int(offsets[index])
                let next = index + 1 < offsets.count ? Int(offsets[index + 1]) : end
                offsets[index] = UInt32(written)
                let (marker, start, count) = Self.header(UnsafeBufferPointer(bytes), at: position)
                guard marker >> 4 == 0xA || marker >> 4 == 0xD else {
                    (raw + written).copyMemory(from: raw + position, byteCount: next - position)
                    written += next - position
                    continue
                }
                (raw + written).copyMemory(from: raw + position, byteCount: start - position)
                written += start - position
                let references = marker >> 4 == 0xD ? 2 * count : count
                for reference in 0..<references {
                    let value = UInt32(bigEndian: (raw + start + 4 * reference).loadUnaligned(as: UInt32.self))
                    if refSize == 1 {
                        raw.storeBytes(of: UInt8(truncatingIfNeeded: value), toByteOffset: written, as: UInt8.self)
                    } else {
                        raw.storeBytes(of: UInt16(truncatingIfNeeded: value).bigEndian, toByteOffset: written, as: UInt16.self)
                    }
                    written += refSize
                }
            }
        }
        out.removeSubrange(written...)
    }
}
