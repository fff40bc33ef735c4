/// Writes a `PlistTree` as a binary property list (`bplist00`), every node an object, in
/// node order. Strings that are pure ASCII are written as ASCII, others as UTF-16, the way
/// Apple's writer does; integers take the smallest width Apple's reader accepts.
enum BinaryPlistWriter {
    static func write(_ tree: PlistTree, root: UInt32) -> [UInt8] {
        let count = tree.nodes.count
        let refSize = byteWidth(UInt64(max(count - 1, 0)))
        var out: [UInt8] = []
        out.reserveCapacity(min(tree.text.count + count * 8 + tree.children.count * refSize + 64, 1 << 30))
        out.append(contentsOf: "bplist00".utf8)
        var offsets = [Int](filledWith: 0, count: count)
        tree.text.withUnsafeBufferPointer { text in
            tree.children.withUnsafeBufferPointer { children in
                for index in 0..<count {
                    offsets[index] = out.count
                    let node = tree.nodes[index]
                    switch node.kind {
                    case .bool:
                        out.append(node.bits == 0 ? 0x08 : 0x09)
                    case .int:
                        appendInteger(node.bits, isUnsigned: node.isUnsigned, to: &out)
                    case .real:
                        out.append(0x23)
                        appendBigEndian(node.bits, size: 8, to: &out)
                    case .date:
                        out.append(0x33)
                        appendBigEndian(node.bits, size: 8, to: &out)
                    case .uid:
                        let width = byteWidth(node.bits)
                        out.append(0x80 | UInt8(width - 1))
                        appendBigEndian(node.bits, size: width, to: &out)
                    case .data:
                        appendMarker(0x40, count: Int(node.count), to: &out)
                        out.append(contentsOf: UnsafeBufferPointer(rebasing: text[Int(node.start)..<Int(node.start + node.count)]))
                    case .asciiString, .utf16String:
                        appendString(UnsafeBufferPointer(rebasing: text[Int(node.start)..<Int(node.start + node.count)]), to: &out)
                    case .array:
                        appendMarker(0xA0, count: Int(node.count), to: &out)
                        for child in children[Int(node.start)..<Int(node.start + node.count)] {
                            appendBigEndian(UInt64(child), size: refSize, to: &out)
                        }
                    case .dict:
                        appendMarker(0xD0, count: Int(node.count), to: &out)
                        for child in children[Int(node.start)..<Int(node.start + 2 * node.count)] {
                            appendBigEndian(UInt64(child), size: refSize, to: &out)
                        }
                    }
                }
            }
        }
        let tableOffset = out.count
        let offsetSize = byteWidth(UInt64(max(tableOffset, 1)))
        for offset in offsets { appendBigEndian(UInt64(offset), size: offsetSize, to: &out) }
        out.append(contentsOf: [0, 0, 0, 0, 0, 0])
        out.append(UInt8(offsetSize))
        out.append(UInt8(refSize))
        appendBigEndian(UInt64(count), size: 8, to: &out)
        appendBigEndian(UInt64(root), size: 8, to: &out)
        appendBigEndian(UInt64(tableOffset), size: 8, to: &out)
        return out
    }

    /// Bytes needed for `value` among the widths 1, 2, 4, 8.
    static func byteWidth(_ value: UInt64) -> Int {
        if value <= 0xFF { return 1 }
        if value <= 0xFFFF { return 2 }
        if value <= 0xFFFF_FFFF { return 4 }
        return 8
    }

    @inline(__always)
    static func appendBigEndian(_ value: UInt64, size: Int, to out: inout [UInt8]) {
        var shift = 8 * (size - 1)
        while shift >= 0 {
            out.append(UInt8(truncatingIfNeeded: value &>> UInt64(shift)))
            shift -= 8
        }
    }

    static func appendInteger(_ bits: UInt64, isUnsigned: Bool, to out: inout [UInt8]) {
        if isUnsigned {
            out.append(0x14)
            appendBigEndian(0, size: 8, to: &out)
            appendBigEndian(bits, size: 8, to: &out)
        } else if Int64(bitPattern: bits) < 0 {
            out.append(0x13)
            appendBigEndian(bits, size: 8, to: &out)
        } else {
            // 1, 2 and 4-byte integers are read as unsigned; 8-byte ones as signed.
            let width = byteWidth(bits)
            out.append(0x10 | UInt8(width.trailingZeroBitCount))
            appendBigEndian(bits, size: width, to: &out)
        }
    }

    static func appendMarker(_ high: UInt8, count: Int, to out: inout [UInt8]) {
        if count < 15 {
            out.append(high | UInt8(count))
        } else {
            out.append(high | 0x0F)
            appendInteger(UInt64(count), isUnsigned: false, to: &out)
        }
    }

    /// `utf8` is valid UTF-8 (guaranteed by every producer of a `PlistTree`).
    static func appendString(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        if isASCII(utf8) {
            appendMarker(0x50, count: utf8.count, to: &out)
            out.append(contentsOf: utf8)
            return
        }
        let start = out.count
        appendUTF16BigEndian(utf8, to: &out)
        let units = (out.count - start) / 2
        // The marker goes before the units; its size depends on their count.
        var marker: [UInt8] = []
        appendMarker(0x60, count: units, to: &marker)
        out.insert(contentsOf: marker, at: start)
    }

    static func isASCII(_ utf8: UnsafeBufferPointer<UInt8>) -> Bool {
        for byte in utf8 where byte >= 0x80 { return false }
        return true
    }

    /// The UTF-16 code units of valid UTF-8 text, big-endian, as binary plists store them
    /// (a sequence that is not valid UTF-8 would be U+FFFD). Decoded straight into `out`, which
    /// grows once by the most the text can take: two bytes of UTF-16 per byte of UTF-8 (an
    /// ASCII byte gives two; longer sequences give as many or fewer).
    static func appendUTF16BigEndian(_ utf8: UnsafeBufferPointer<UInt8>, to out: inout [UInt8]) {
        let start = out.count
        let room = 2 * utf8.count
        out.append(contentsOf: repeatElement(0, count: room))
        let written = out.withUnsafeMutableBufferPointer { buffer -> Int in
            let units = buffer.baseAddress! + start
            var written = 0
            func put(_ unit: UInt32) {
                units[written] = UInt8(truncatingIfNeeded: unit >> 8)
                units[written + 1] = UInt8(truncatingIfNeeded: unit)
                written += 2
            }
            var index = 0
            while index < utf8.count {
                let lead = UInt32(utf8[index])
                guard let length = UTF8Encoding.validSequenceLength(utf8, at: index) else {
                    put(0xFFFD)
                    index += 1
                    continue
                }
                func next(_ offset: Int) -> UInt32 { UInt32(utf8[index + offset] & 0x3F) }
                switch length {
                case 1: put(lead)
                case 2: put((lead & 0x1F) << 6 | next(1))
                case 3: put((lead & 0x0F) << 12 | next(1) << 6 | next(2))
                default:
                    let scalar = (lead & 0x07) << 18 | next(1) << 12 | next(2) << 6 | next(3)
                    put(0xD800 + ((scalar - 0x10000) >> 10))
                    put(0xDC00 + (scalar & 0x3FF))
                }
                index += length
            }
            return written
        }
        out.removeLast(room - written)
    }
}
