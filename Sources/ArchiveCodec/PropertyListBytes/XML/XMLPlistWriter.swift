/// Writes a `PlistTree` as an XML property list in Apple's layout (tab indentation, UIDs as
/// `<dict><key>CF$UID</key><integer>N</integer></dict>`), walking containers with an explicit
/// stack so any nesting depth is safe.
///
/// XML plist dates carry whole seconds of the years 1…9999 only (Apple's format): sub-second
/// plist dates are rounded down here, and a plist date outside those years (or not finite)
/// is refused rather than replaced. NSDate objects are unaffected: they store a real.
enum XMLPlistWriter {
    static let maximumIndent = 64

    /// `limit`: the most bytes to write; past it, `limitExceeded` (checked per value).
    static func write(_ tree: PlistTree, root: UInt32, limit: Int = Int.max) throws(CodecError) -> [UInt8] {
        var text = Text(reserve: min(tree.text.count * 2 + tree.nodes.count * 24 + 256, 1 << 30, limit))
        text.append(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n")
        // Each frame: a container node and the next child position to write.
        var stack: [(node: UInt32, next: Int)] = []
        var written = 0
        func writeScalarOrOpen(_ index: UInt32, depth: Int, key: UInt32?) throws(CodecError) {
            written &+= 1
            try ConversionDeadline.poll(written)
            guard text.count <= limit else {
                throw CodecError(.limitExceeded, "the XML archive would be larger than \(limit) bytes for this JSON document: it asks for far more objects than its size suggests", limit: limit)
            }
            text.flushIfFull()
            let node = tree.node(index)
            text.indent(depth)
            if let key {
                text.append("<key>")
                text.appendEscaped(tree, tree.node(key))
                text.append("</key>\n")
                text.indent(depth)
            }
            switch node.kind {
            case .bool:
                text.append(node.bits == 0 ? "<false/>\n" : "<true/>\n")
            case .int:
                text.append("<integer>")
                text.appendInteger(node.bits, negative: !node.isUnsigned && Int64(bitPattern: node.bits) < 0)
                text.append("</integer>\n")
            case .real:
                text.append("<real>")
                try text.appendReal(Double(bitPattern: node.bits))
                text.append("</real>\n")
            case .date:
                text.append("<date>")
                let time = Double(bitPattern: node.bits)
                guard time.isFinite, let date = DateText.format(time.rounded(.down), fractionDigits: 0) else {
                    throw CodecError(.invalidDocument, "the plist date \(time) (seconds since 2001) is outside the years an XML plist can write (1…9999); ask for a binary archive")
                }
                date.withUnsafeBufferPointer { text.append($0) }
                text.append("</date>\n")
            case .data:
                text.append("<data>")
                text.appendBase64(tree, node)
                text.append("</data>\n")
            case .asciiString, .utf16String:
                text.append("<string>")
                text.appendEscaped(tree, node)
                text.append("</string>\n")
            case .uid:
                // What Apple's reader (and ours) takes back: CF$UID holds 32 bits.
                guard node.bits <= UInt64(UInt32.max) else {
                    throw CodecError(.invalidDocument, "the UID \(node.bits) is larger than an XML plist can write (CF$UID holds 32 bits); ask for a binary property list")
                }
                text.append("<dict>\n")
                text.indent(depth + 1)
                text.append("<key>CF$UID</key>\n")
                text.indent(depth + 1)
                text.append("<integer>")
                text.appendInteger(node.bits, negative: false)
                text.append("</integer>\n")
                text.indent(depth)
                text.append("</dict>\n")
            case .array, .dict:
                if node.kind == .dict, node.count == 1, tree.bytes(tree.node(tree.child(node, 0)), equal: "CF$UID"),
                    tree.node(tree.child(node, 1)).kind == .int
                {
                    throw CodecError(.invalidDocument, "a dictionary whose only key is CF$UID, with an integer, reads back from XML as a UID; ask for a binary archive")
                }
                if node.count == 0 {
                    text.append(node.kind == .array ? "<array/>\n" : "<dict/>\n")
                } else {
                    text.append(node.kind == .array ? "<array>\n" : "<dict>\n")
                    stack.append((index, 0))
                }
            }
        }
        try writeScalarOrOpen(root, depth: 0, key: nil)
        while let frame = stack.last {
            let node = tree.node(frame.node)
            let depth = stack.count
            if frame.next == Int(node.count) {
                stack.removeLast()
                text.indent(depth - 1)
                text.append(node.kind == .array ? "</array>\n" : "</dict>\n")
                continue
            }
            stack[stack.count - 1].next += 1
            if node.kind == .array {
                try writeScalarOrOpen(tree.child(node, frame.next), depth: depth, key: nil)
            } else {
                let key = tree.child(node, frame.next)
                try writeScalarOrOpen(tree.child(node, Int(node.count) + frame.next), depth: depth, key: key)
            }
        }
        text.append("</plist>\n")
        return text.finish()
    }

    /// The XML text: written through a pointer into a chunk (`OutputBytes`), which goes to the
    /// output array a chunk at a time, so that the array is appended to once per chunk rather
    /// than once per tag (an array's append checks its buffer and costs about a hundred
    /// instructions however few bytes it adds). A run of text longer than a chunk goes to the
    /// array directly: the chunk never holds much more than `chunkSize`.
    private struct Text {
        private var out: [UInt8] = []
        private var chunk = OutputBytes(capacity: Text.chunkSize + 1024)
        static let chunkSize = 1 << 16

        init(reserve: Int) { out.reserveCapacity(reserve) }

        /// Bytes written so far.
        var count: Int { out.count + chunk.count }

        /// Hands the chunk to the array once it holds `chunkSize` bytes (asked once a value).
        mutating func flushIfFull() {
            if chunk.count >= Self.chunkSize { flush() }
        }

        private mutating func flush() {
            chunk.withBytes { out.append(contentsOf: $0) }
            chunk.count = 0
        }

        mutating func finish() -> [UInt8] {
            flush()
            return out
        }

        mutating func append(_ literal: StaticString) {
            chunk.append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
        }

        mutating func append(_ bytes: UnsafeBufferPointer<UInt8>) {
            guard bytes.count > Self.chunkSize else { return chunk.append(bytes) }
            flush()
            out.append(contentsOf: bytes)
        }

        /// One tab per level, as Apple writes, up to `maximumIndent`: deeper lines keep that
        /// indentation, since tabs per level would grow the output with the square of the
        /// depth (200,000 levels would need 40 GB). Whitespace between elements means nothing.
        mutating func indent(_ depth: Int) {
            let tabs = min(depth, XMLPlistWriter.maximumIndent)
            chunk.room(for: tabs)
            chunk.end.update(repeating: 0x09, count: tabs)
            chunk.count += tabs
        }

        /// The text of string node `node`, escaped; runs without a byte to escape go whole.
        mutating func appendEscaped(_ tree: PlistTree, _ node: PlistTree.Node) {
            tree.text.withUnsafeBufferPointer { text in
                var run = Int(node.start)
                let end = run + Int(node.count)
                for index in run..<end {
                    let escape: StaticString
                    switch text[index] {
                    case UInt8(ascii: "&"): escape = "&amp;"
                    case UInt8(ascii: "<"): escape = "&lt;"
                    case UInt8(ascii: ">"): escape = "&gt;"
                    case 0x0D: escape = "&#13;"
                    default: continue
                    }
                    append(UnsafeBufferPointer(rebasing: text[run..<index]))
                    append(escape)
                    run = index + 1
                }
                append(UnsafeBufferPointer(rebasing: text[run..<end]))
            }
        }

        /// The base64 text of data node `node`.
        mutating func appendBase64(_ tree: PlistTree, _ node: PlistTree.Node) {
            tree.text.withUnsafeBufferPointer { text in
                let bytes = UnsafeBufferPointer(rebasing: text[Int(node.start)..<Int(node.start + node.count)])
                let length = Base64.encodedCount(bytes.count)
                guard length > Self.chunkSize else {
                    chunk.room(for: length)
                    Base64.encode(bytes, to: chunk.end)
                    chunk.count += length
                    return
                }
                flush()
                Base64.encode(bytes, into: &out)
            }
        }

        /// The decimal digits of `bits` (a negative `Int64` when `negative`), spelled by
        /// `JSONOutput.writeDigits`, the one home of the digit pairs.
        mutating func appendInteger(_ bits: UInt64, negative: Bool) {
            let value = negative ? (~bits &+ 1) : bits
            let length = JSONOutput.decimalLength(value)
            chunk.room(for: length + 1)
            if negative { chunk.append(UInt8(ascii: "-")) }
            _ = JSONOutput.writeDigits(value, endingAt: chunk.end + length)
            chunk.count += length
        }

        mutating func appendReal(_ value: Double) throws(CodecError) {
            if value.isNaN {
                // XML writes every NaN as "nan", which reads back as the usual quiet NaN.
                guard value.bitPattern == NonFiniteReal.canonicalNaN else {
                    let bits = NonFiniteReal.text(value).dropFirst(4)
                    throw CodecError(.invalidDocument, "the NaN with bits \(bits) cannot be written in XML (it reads back as the usual NaN); ask for a binary archive")
                }
                append("nan")
            } else if value.isInfinite {
                append(value < 0 ? "-infinity" : "+infinity")
            } else {
                RealSpelling(value).withBytes { append($0) }
            }
        }
    }
}
