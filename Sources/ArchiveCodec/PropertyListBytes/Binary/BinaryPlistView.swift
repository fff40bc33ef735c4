/// Reads a validated binary plist (see `ObjectRangeCheck`). Methods assume validation
/// passed and do not re-check bounds.
struct BinaryPlistView {
    let bytes: UnsafeBufferPointer<UInt8>
    /// Where the offset table starts and how wide its entries are. Entries are read in place
    /// (a copy would be as large as the table); each was checked to lie in the object area.
    let tableStart: Int
    let offsetSize: Int
    let refSize: Int
    let objectCount: Int

    /// Reads `size` (1...8) bytes at `offset` as a big-endian number, as one 8-byte load
    /// shifted into place. Reading up to 7 bytes past the value is safe: every value read lies
    /// in the object area or the offset table, and the 32-byte trailer follows them.
    ///
    /// Stack: the recursive writers inline this everywhere, so its code sits in every level's
    /// frame, and the frame sets how deep a worker's stack can go (`StackBudget`). One load
    /// makes the frame larger than a byte loop would (a switch per width, larger still), and
    /// saves a loop per reference on every pass. Re-measure the stack after changing it
    /// (`scripts/bench/measure_stack.sh`; docs/benchmarks.md,
    /// "Stack per recursion level (the depth limit)").
    @inline(__always)
    func readBigEndian(at offset: Int, size: Int) -> UInt64 {
        let word = UInt64(bigEndian: UnsafeRawPointer(bytes.baseAddress!).loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        return word &>> UInt64(truncatingIfNeeded: 64 &- 8 &* size)
    }

    @inline(__always)
    func offset(of ref: Int) -> Int {
        Int(truncatingIfNeeded: readBigEndian(at: tableStart &+ ref &* offsetSize, size: offsetSize))
    }

    /// The first object of `range` whose table entry points outside the object area (from
    /// byte 8 up to `areaEnd`), or nil. One tight loop per entry width: this reads the whole
    /// table, an entry per object, before anything else may trust it.
    func firstMisplacedOffset(in range: Range<Int>, areaEnd: Int) -> Int? {
        func scan<Entry: FixedWidthInteger>(_: Entry.Type) -> Int? {
            let raw = UnsafeRawPointer(bytes.baseAddress!) + tableStart
            // One unsigned comparison: positions below 8 wrap around to huge values.
            let span = UInt64(areaEnd - 8)
            func isMisplaced(_ ref: Int) -> Bool {
                UInt64(Entry(bigEndian: raw.loadUnaligned(fromByteOffset: ref * offsetSize, as: Entry.self))) &- 8 >= span
            }
            // The largest wrapped position first, without a branch per entry (the loop
            // vectorises); only a file with a bad entry is searched for which.
            var largest: UInt64 = 0
            for ref in range {
                largest = Swift.max(largest, UInt64(Entry(bigEndian: raw.loadUnaligned(fromByteOffset: ref * offsetSize, as: Entry.self))) &- 8)
            }
            return largest >= span ? range.first(where: isMisplaced) : nil
        }
        switch offsetSize {
        case 1: return scan(UInt8.self)
        case 2: return scan(UInt16.self)
        case 4: return scan(UInt32.self)
        case 8: return scan(UInt64.self)
        default:
            return range.first { ref in
                let position = readBigEndian(at: tableStart + ref * offsetSize, size: offsetSize)
                return position < 8 || position >= UInt64(areaEnd)
            }
        }
    }

    func isContainer(_ ref: Int) -> Bool {
        let kind = bytes[offset(of: ref)] >> 4
        return kind == 0xA || kind == 0xC || kind == 0xD
    }

    /// The object reference stored at element `index` of a container's payload.
    @inline(__always)
    func childRef(_ header: PlistObjectHeader, _ index: Int) -> Int {
        childRef(from: header.start, index)
    }

    /// `childRef` of the container whose references begin at byte `start` (`header.start`).
    @inline(__always)
    func childRef(from start: Int, _ index: Int) -> Int {
        Int(truncatingIfNeeded: readBigEndian(at: start &+ index &* refSize, size: refSize))
    }

    @inline(__always)
    func header(of ref: Int) -> PlistObjectHeader {
        header(at: offset(of: ref))
    }

    /// The header of the object at byte `position` (an offset the table gave). Wrapping
    /// arithmetic: validation bounded every position and count, so no sum here can overflow.
    @inline(__always)
    func header(at position: Int) -> PlistObjectHeader {
        let marker = bytes[position]
        let low = Int(marker & 0x0F)
        switch marker >> 4 {
        case 0x0: return PlistObjectHeader(kind: .bool, marker: marker, start: position &+ 1, count: 0)
        case 0x1: return PlistObjectHeader(kind: .int, marker: marker, start: position &+ 1, count: 1 &<< low)
        case 0x2: return PlistObjectHeader(kind: .real, marker: marker, start: position &+ 1, count: 1 &<< low)
        case 0x3: return PlistObjectHeader(kind: .date, marker: marker, start: position &+ 1, count: 8)
        case 0x8: return PlistObjectHeader(kind: .uid, marker: marker, start: position &+ 1, count: low &+ 1)
        default:
            var start = position &+ 1
            var count = low
            if low == 0xF {
                let intMarker = bytes[start]
                let size = 1 &<< Int(intMarker & 0x0F)
                count = Int(truncatingIfNeeded: readBigEndian(at: start &+ 1, size: size))
                start &+= 1 &+ size
            }
            let kind: PlistKind
            switch marker >> 4 {
            case 0x4: kind = .data
            case 0x5: kind = .asciiString
            case 0x6: kind = .utf16String
            case 0xD: kind = .dict
            default: kind = .array  // 0xA array, 0xC set
            }
            return PlistObjectHeader(kind: kind, marker: marker, start: start, count: count)
        }
    }

    // MARK: Values

    func integer(_ header: PlistObjectHeader) -> PlistInteger {
        switch header.count {
        case 8: return PlistInteger(signed: Int64(bitPattern: readBigEndian(at: header.start, size: 8)))
        case 16:
            let high = readBigEndian(at: header.start, size: 8)
            let low = readBigEndian(at: header.start + 8, size: 8)
            return high == 0 ? PlistInteger(unsigned: low) : PlistInteger(signed: Int64(bitPattern: low))
        default: return PlistInteger(signed: Int64(readBigEndian(at: header.start, size: header.count)))
        }
    }

    func real(_ header: PlistObjectHeader) -> Double {
        if header.count == 4 {
            return Double(Float(bitPattern: UInt32(readBigEndian(at: header.start, size: 4))))
        }
        return Double(bitPattern: readBigEndian(at: header.start, size: 8))
    }

    func bool(_ header: PlistObjectHeader) -> Bool { header.marker == 0x09 }

    func uid(_ header: PlistObjectHeader) -> UInt64 { readBigEndian(at: header.start, size: header.count) }

    /// The value of `ref`, an object already known to be a UID in range (the lists the
    /// analysis classified), read without building its header.
    @inline(__always)
    func uidValue(of ref: Int) -> Int {
        let position = offset(of: ref)
        return Int(truncatingIfNeeded: readBigEndian(at: position &+ 1, size: Int(bytes[position] & 0x0F) &+ 1))
    }

    /// The payload bytes of a string (ASCII or big-endian UTF-16) or data object.
    func payload(_ header: PlistObjectHeader) -> UnsafeBufferPointer<UInt8> {
        let length = header.kind == .utf16String ? header.count * 2 : header.count
        return UnsafeBufferPointer(rebasing: bytes[header.start..<(header.start + length)])
    }

    /// Whether `ref` is a string equal to the ASCII `literal` (the mapping's keys, looked up
    /// for nearly every object: compared in place, without a closure).
    func isString(_ ref: Int, equalTo literal: StaticString) -> Bool {
        let header = header(of: ref)
        guard literal.hasPointerRepresentation else {
            return isString(ref, equalTo: literal.description)
        }
        let count = literal.utf8CodeUnitCount
        guard header.count == count else { return false }
        let text = literal.utf8Start
        switch header.kind {
        case .asciiString:
            for index in 0..<count where bytes[header.start + index] != text[index] { return false }
            return true
        case .utf16String:
            for index in 0..<count
            where bytes[header.start + 2 * index] != 0 || bytes[header.start + 2 * index + 1] != text[index] {
                return false
            }
            return true
        default:
            return false
        }
    }

    /// The slow path of `isString(_:equalTo:)` for a literal held as a single scalar.
    private func isString(_ ref: Int, equalTo text: String) -> Bool {
        let header = header(of: ref)
        switch header.kind {
        case .asciiString: return payload(header).elementsEqual(text.utf8)
        case .utf16String: return (0..<header.count).map { UInt16(bytes[header.start + 2 * $0]) << 8 | UInt16(bytes[header.start + 2 * $0 + 1]) }.elementsEqual(text.utf16)
        default: return false
        }
    }

    /// Looks up `key` in a dict object; returns the value's object reference.
    func value(in dict: PlistObjectHeader, forKey key: StaticString) -> Int? {
        for index in 0..<dict.count where isString(childRef(dict, index), equalTo: key) {
            return childRef(dict, dict.count + index)
        }
        return nil
    }

    func fail(_ message: String, at offset: Int) -> CodecError {
        CodecError(.malformedPlist, message, byteOffset: offset)
    }

    /// Walks the containers reachable from `top` without recursion. Fails if a container
    /// contains itself (directly or through other containers) or if the tree the raw view
    /// would write is larger than `BinaryPlist.expansionLimit`. Returns the container height.
    /// One pass: each frame sums its children's height and expansion as it meets them (a
    /// child container's when it is done), so no child is read twice.
    func checkAcyclicAndMeasure(from top: Int) throws(CodecError) -> Int {
        // Per object: 0 = unseen, 1 = on the path, 2 = done.
        var state = [UInt8](filledWith: 0, count: objectCount)
        // Filled for containers when they are done; other values are height 0, one value.
        var height = [UInt32](filledWith: 0, count: objectCount)
        var expanded = [UInt32](filledWith: 1, count: objectCount)
        let limit = min(BinaryPlist.expansionLimit(objectCount: objectCount), Int(UInt32.max))
        // Each frame keeps its object's header; dictionary keys are strings (validated), so
        // only values are walked, and each key counts as one value in the expansion.
        struct Frame {
            var ref: Int
            var header: PlistObjectHeader
            var next: Int
            var tallest: UInt32 = 0
            var size: Int
        }
        var stack: [Frame] = []
        func open(_ ref: Int) {
            let header = header(of: ref)
            let keys = header.kind == .dict ? header.count : 0
            stack.append(Frame(ref: ref, header: header, next: keys, size: 1 + keys))
        }
        func tooLarge(_ frame: Frame) -> CodecError {
            CodecError(.limitExceeded, "containers shared inside the plist would expand to more than \(limit) values", byteOffset: offset(of: frame.ref), found: frame.size, limit: limit)
        }
        guard isContainer(top) else { return 0 }
        open(top)
        state[top] = 1
        var trips = 0
        while let last = stack.indices.last {
            trips &+= 1
            try ConversionDeadline.poll(trips)
            let header = stack[last].header
            let total = header.kind == .dict ? 2 * header.count : header.count
            let next = stack[last].next
            if next < total {
                stack[last].next = next + 1
                let child = childRef(header, next)
                guard isContainer(child) else {
                    stack[last].size += 1
                    continue
                }
                switch state[child] {
                case 0:
                    state[child] = 1
                    open(child)
                case 1:
                    throw fail("container object \(child) contains itself", at: offset(of: child))
                default:
                    stack[last].tallest = max(stack[last].tallest, height[child])
                    stack[last].size += Int(expanded[child])
                    guard stack[last].size <= limit else { throw tooLarge(stack[last]) }
                }
                continue
            }
            let frame = stack.removeLast()
            guard frame.size <= limit else { throw tooLarge(frame) }
            state[frame.ref] = 2
            height[frame.ref] = frame.tallest + 1
            expanded[frame.ref] = UInt32(frame.size)
            if let parent = stack.indices.last {
                stack[parent].tallest = max(stack[parent].tallest, frame.tallest + 1)
                stack[parent].size += frame.size
                guard stack[parent].size <= limit else { throw tooLarge(stack[parent]) }
            }
        }
        return Int(height[top])
    }
}
