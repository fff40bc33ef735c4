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
        var out: [UInt8] = []
        out.reserveCapacity(min(tree.text.count * 2 + tree.nodes.count * 24 + 256, 1 << 30, limit))
        append(
            "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<!DOCTYPE plist PUBLIC \"-//Apple//DTD PLIST 1.0//EN\" \"http://www.apple.com/DTDs/PropertyList-1.0.dtd\">\n<plist version=\"1.0\">\n",
            to: &out)
        // Each frame: a container node and the next child position to write.
        var stack: [(node: UInt32, next: Int)] = []
        var written = 0
        // One tab per level, as Apple writes, up to `maximumIndent`: deeper lines keep that
        // indentation, since tabs per level would grow the output with the square of the
        // depth (200,000 levels would need 40 GB). Whitespace between elements means nothing.
        func indent(_ depth: Int) {
            for _ in 0..<min(depth, Self.maximumIndent) { out.append(0x09) }
        }
        func writeScalarOrOpen(_ index: UInt32, depth: Int, key: UInt32?) throws(CodecError) {
            written &+= 1
            try ConversionDeadline.poll(written)
            guard out.count <= limit else {
                throw CodecError(.limitExceeded, "the XML archive would be larger than \(limit) bytes for this JSON document: it asks for far more objects than its size suggests", limit: limit)
            }
            let node = tree.node(index)
            indent(depth)
            if let key {
                append("<key>", to: &out)
                appendEscaped(tree.bytes(tree.node(key)), to: &out)
                append("</key>\n", to: &out)
                indent(depth)
            }
            switch node.kind {
            case .bool:
                append(node.bits == 0 ? "<false/>\n" : "<true/>\n", to: &out)
            case .int:
                append("<integer>", to: &out)
                let text = node.isUnsigned ? String(node.bits) : String(Int64(bitPattern: node.bits))
                out.append(contentsOf: text.utf8)
                append("</integer>\n", to: &out)
            case .real:
                append("<real>", to: &out)
                try appendReal(Double(bitPattern: node.bits), to: &out)
                append("</real>\n", to: &out)
            case .date:
                append("<date>", to: &out)
                let time = Double(bitPattern: node.bits)
                guard time.isFinite, let text = DateText.format(time.rounded(.down), fractionDigits: 0) else {
                    throw CodecError(.invalidDocument, "the plist date \(time) (seconds since 2001) is outside the years an XML plist can write (1…9999); ask for a binary archive")
                }
                text.withUnsafeBufferPointer { out.append(contentsOf: $0) }
                append("</date>\n", to: &out)
            case .data:
                append("<data>", to: &out)
                tree.text.withUnsafeBufferPointer { text in
                    Base64.encode(UnsafeBufferPointer(rebasing: text[Int(node.start)..<Int(node.start + node.count)]), into: &out)
                }
                append("</data>\n", to: &out)
            case .asciiString, .utf16String:
                append("<string>", to: &out)
                appendEscaped(tree.bytes(node), to: &out)
                append("</string>\n", to: &out)
            case .uid:
                // What Apple's reader (and ours) takes back: CF$UID holds 32 bits.
                guard node.bits <= UInt64(UInt32.max) else {
                    throw CodecError(.invalidDocument, "the UID \(node.bits) is larger than an XML plist can write (CF$UID holds 32 bits); ask for a binary property list")
                }
                append("<dict>\n", to: &out)
                indent(depth + 1)
                append("<key>CF$UID</key>\n", to: &out)
                indent(depth + 1)
                append("<integer>", to: &out)
                out.append(contentsOf: String(node.bits).utf8)
                append("</integer>\n", to: &out)
                indent(depth)
                append("</dict>\n", to: &out)
            case .array, .dict:
                if node.kind == .dict, node.count == 1, tree.bytes(tree.node(tree.child(node, 0))).elementsEqual("CF$UID".utf8),
                    tree.node(tree.child(node, 1)).kind == .int
                {
                    throw CodecError(.invalidDocument, "a dictionary whose only key is CF$UID, with an integer, reads back from XML as a UID; ask for a binary archive")
                }
                if node.count == 0 {
                    append(node.kind == .array ? "<array/>\n" : "<dict/>\n", to: &out)
                } else {
                    append(node.kind == .array ? "<array>\n" : "<dict>\n", to: &out)
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
                indent(depth - 1)
                append(node.kind == .array ? "</array>\n" : "</dict>\n", to: &out)
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
        append("</plist>\n", to: &out)
        return out
    }

    private static func append(_ literal: StaticString, to out: inout [UInt8]) {
        literal.withUTF8Buffer { out.append(contentsOf: $0) }
    }

    private static func appendReal(_ value: Double, to out: inout [UInt8]) throws(CodecError) {
        if value.isNaN {
            // XML writes every NaN as "nan", which reads back as the usual quiet NaN.
            guard value.bitPattern == NonFiniteReal.canonicalNaN else {
                throw CodecError(.invalidDocument, "the NaN with bits \(NonFiniteReal.text(value).dropFirst(4)) cannot be written in XML (it reads back as the usual NaN); ask for a binary archive")
            }
            append("nan", to: &out)
        } else if value.isInfinite {
            append(value < 0 ? "-infinity" : "+infinity", to: &out)
        } else {
            out.append(contentsOf: value.description.utf8)
        }
    }

    private static func appendEscaped(_ text: ArraySlice<UInt8>, to out: inout [UInt8]) {
        for byte in text {
            switch byte {
            case UInt8(ascii: "&"): append("&amp;", to: &out)
            case UInt8(ascii: "<"): append("&lt;", to: &out)
            case UInt8(ascii: ">"): append("&gt;", to: &out)
            case 0x0D: append("&#13;", to: &out)
            default: out.append(byte)
            }
        }
    }
}
