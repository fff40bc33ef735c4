/// The type strings of a typedstream, parsed once each into one flat array of nodes.
///
/// Every group of values in a stream starts with a type string (`"@"`, `"iI"`,
/// `"{CGSize=dd}"`), and the same few strings return thousands of times by reference; each is
/// parsed the first time a group uses it, and values then point at their node. A parsed string
/// is a tree in pre-order: its root (code `TypeCode.sequence`) has the string's types as
/// children; a struct has its fields, an array its element type (once, whatever the count), a
/// pointer its pointee. A node's subtree is the `size` nodes from it, so its first child is the
/// next node and each child's next sibling is `size` nodes on: walking needs no child lists
/// and no recursion.
///
/// Parsing uses an explicit stack: a type string nested a million levels deep costs memory in
/// proportion, never stack.
struct TypeTable {
    /// One type in a parsed type string.
    struct Node: Equatable {
        /// The type's code (`TypeCode`): its encoding's first character, or
        /// `TypeCode.sequence` for a string's root.
        var code: UInt8
        /// Struct: its fields; array: its element count; pointer: 1; root: the string's types.
        var count: UInt32
        /// The nodes in this subtree, this one included.
        var size: UInt32
        /// The fewest stream bytes a value of this type takes (saturating at `UInt32.max`):
        /// one for every scalar but `!`, which takes none. Bounds an array's count against the
        /// bytes left before anything is reserved for it.
        var minimumBytes: UInt32
        /// The shared string this node was parsed from, and where in it the node's own text is
        /// (`start..<end`, byte offsets into that string).
        var string: UInt32
        var start: UInt32
        var end: UInt32
    }

    private(set) var nodes: [Node] = []

    /// At most 2^27 − 1 nodes, so that a value's record holds its node in 27 bits
    /// (`TypedStream.Value`): type strings of a hundred million types are no stream's.
    static let maximumNodes = (1 << 27) - 1
    /// Per shared string index: its root node + 1, or 0 while it has not been parsed.
    private var roots: [UInt32] = []

    subscript(node: UInt32) -> Node {
        @inline(__always) get { nodes[Int(node)] }
    }

    /// Room for `nodes` nodes and as many type strings before the tables grow.
    mutating func reserveCapacity(nodes count: Int) {
        nodes.reserveCapacity(count)
        roots.reserveCapacity(count)
    }

    /// The root node of shared string `string` if it was parsed before.
    @inline(__always)
    func root(ofString string: UInt32) -> UInt32? {
        Int(string) < roots.count && roots[Int(string)] != 0 ? roots[Int(string)] - 1 : nil
    }

    /// The first child of `node` (meaningful when `count > 0`, or for an array's element type).
    @inline(__always)
    static func firstChild(of node: UInt32) -> UInt32 { node + 1 }

    /// Whether `node` is an array of `c` or `C`, whose elements are the array's bytes as they
    /// stand (one value, not one per element, as NeXT's writer wrote them in one piece). An
    /// array of `B` is stored byte by byte too, but holds its elements as values.
    @inline(__always)
    func isByteArray(_ node: UInt32) -> Bool {
        guard nodes[Int(node)].code == TypeCode.arrayOpen else { return false }
        let element = nodes[Int(node) + 1].code
        return element == TypeCode.char || element == TypeCode.unsignedChar
    }

    /// The sibling after `node`.
    @inline(__always)
    func next(after node: UInt32) -> UInt32 { node + nodes[Int(node)].size }

    /// The root node of `text`, the contents of shared string `string`, parsing it unless it
    /// was parsed before. Throws `.malformedTypedStream` at `offset` for an empty string, an
    /// unknown or unsupported code, a bracket that does not close, an array without a count or
    /// with a count past `UInt32.max`, and an array of values that take no bytes (`[5!]`,
    /// which would make values from nothing).
    mutating func root(ofString string: UInt32, text: UnsafeBufferPointer<UInt8>, at offset: Int?) throws(CodecError) -> UInt32 {
        if let known = root(ofString: string) { return known }
        let first = nodes.count
        do throws(CodecError) {
            try parse(text, string: string, at: offset)
        } catch {
            nodes.removeSubrange(first...)
            throw error
        }
        roots.store(UInt32(first) + 1, at: Int(string), filling: 0)
        return UInt32(first)
    }

    /// An open composite while parsing: its node and how many children it has so far.
    private struct Open {
        var node: Int
        var children: UInt32
    }

    /// The parse's stack, kept between the type strings of a stream (a stream parses a few,
    /// and a stack made for each was an allocation each).
    private var openScratch: [Open] = []

    private mutating func parse(_ text: UnsafeBufferPointer<UInt8>, string: UInt32, at offset: Int?) throws(CodecError) {
        func fail(_ message: String) -> CodecError {
            CodecError(.malformedTypedStream, "type encoding \(Self.quoted(text)): \(message)", byteOffset: offset)
        }
        guard !text.isEmpty else { throw fail("empty") }
        // A node per byte at most, and the root.
        guard text.count < Self.maximumNodes - nodes.count else {
            throw CodecError(
                .limitExceeded, "type encoding \(Self.quoted(text)): the stream's type strings would hold more than \(Self.maximumNodes) types", byteOffset: offset,
                found: nodes.count + text.count + 1, limit: Self.maximumNodes)
        }
        // Most type strings are scalars only ("@", "i", "+", "iq"): their root and nodes are laid
        // down at once, as the loop below lays them (a stream read or built per nested payload
        // parses its type strings afresh).
        if let minimum = Self.scalarsMinimumBytes(text) {
            nodes.append(Node(code: TypeCode.sequence, count: UInt32(text.count), size: UInt32(text.count + 1), minimumBytes: minimum, string: string, start: 0, end: UInt32(text.count)))
            for position in text.indices {
                let code = text[position]
                nodes.append(Node(code: code, count: 0, size: 1, minimumBytes: code == TypeCode.ignored ? 0 : 1, string: string, start: UInt32(position), end: UInt32(position + 1)))
            }
            return
        }
        var stack = openScratch
        openScratch = []
        defer {
            stack.removeAll(keepingCapacity: true)
            openScratch = stack
        }
        stack.append(Open(node: nodes.count, children: 0))
        nodes.append(Node(code: TypeCode.sequence, count: 0, size: 0, minimumBytes: 0, string: string, start: 0, end: 0))
        var position = 0
        while let top = stack.last {
            let open = nodes[top.node]
            // Close the innermost composite when it is complete.
            switch open.code {
            case TypeCode.sequence where position == text.count:
                try close(&stack, at: position, fail: fail)
                continue
            case TypeCode.pointer where top.children == 1:
                try close(&stack, at: position, fail: fail)
                continue
            case TypeCode.arrayOpen where top.children == 1:
                guard position < text.count, text[position] == TypeCode.arrayClose else { throw fail("array without its closing ']' at \(position)") }
                position += 1
                try close(&stack, at: position, fail: fail)
                continue
            case TypeCode.structOpen where position < text.count && text[position] == TypeCode.structClose:
                position += 1
                try close(&stack, at: position, fail: fail)
                continue
            default:
                break
            }
            guard position < text.count else { throw fail("ends inside '\(Character(Unicode.Scalar(open.code)))' opened at \(open.start)") }
            // One more type, as a child of the innermost composite.
            stack[stack.count - 1].children += 1
            let code = text[position]
            let start = UInt32(position)
            if TypeCode.isScalar(code) {
                position += 1
                let bytes: UInt32 = code == TypeCode.ignored ? 0 : 1
                nodes.append(Node(code: code, count: 0, size: 1, minimumBytes: bytes, string: string, start: start, end: UInt32(position)))
                continue
            }
            var count: UInt32 = 0
            switch code {
            case TypeCode.arrayOpen:
                position += 1
                let digits = position
                while position < text.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(text[position]) {
                    let (times, overflowTimes) = count.multipliedReportingOverflow(by: 10)
                    let (sum, overflowSum) = times.addingReportingOverflow(UInt32(text[position] - UInt8(ascii: "0")))
                    guard !overflowTimes, !overflowSum else { throw fail("array count past \(UInt32.max) at \(digits)") }
                    count = sum
                    position += 1
                }
                guard position > digits else { throw fail("array without a count at \(digits)") }
            case TypeCode.structOpen:
                position += 1
                // A name, when an '=' comes before any bracket: "{CGSize=dd}", "{?=ii}"; "{ii}" has none.
                var scan = position
                while scan < text.count, ![TypeCode.structNameEnd, TypeCode.structOpen, TypeCode.structClose].contains(text[scan]) { scan += 1 }
                if scan < text.count, text[scan] == TypeCode.structNameEnd { position = scan + 1 }
            case TypeCode.pointer:
                position += 1
                count = 1
            default:
                throw fail("type code '\(Self.character(code))' at \(position) is not one a typedstream holds")
            }
            stack.append(Open(node: nodes.count, children: 0))
            nodes.append(Node(code: code, count: count, size: 0, minimumBytes: 0, string: string, start: start, end: 0))
        }
    }

    /// The fewest stream bytes the types of `text` take when every one is a scalar (one byte
    /// each, none for `!`); nil when any is not.
    private static func scalarsMinimumBytes(_ text: UnsafeBufferPointer<UInt8>) -> UInt32? {
        var minimum: UInt32 = 0
        for code in text {
            guard TypeCode.isScalar(code) else { return nil }
            if code != TypeCode.ignored { minimum += 1 }
        }
        return minimum
    }

    /// Completes the innermost composite: its size, text end, field count and byte minimum.
    private mutating func close(_ stack: inout [Open], at position: Int, fail: (String) -> CodecError) throws(CodecError) {
        let open = stack.removeLast()
        var node = nodes[open.node]
        node.size = UInt32(nodes.count - open.node)
        node.end = UInt32(position)
        var minimum: UInt64 = 0
        var child = UInt32(open.node + 1)
        for _ in 0..<open.children {
            minimum += UInt64(nodes[Int(child)].minimumBytes)
            child += nodes[Int(child)].size
        }
        switch node.code {
        case TypeCode.arrayOpen:
            let element = nodes[open.node + 1].minimumBytes
            guard element > 0 || node.count == 0 else { throw fail("array of \(node.count) values that take no bytes at \(node.start)") }
            minimum = UInt64(node.count) * UInt64(element)
        case TypeCode.pointer:
            break
        default:
            node.count = open.children
            if node.code == TypeCode.sequence, open.children == 0 { throw fail("no types") }
        }
        node.minimumBytes = UInt32(min(minimum, UInt64(UInt32.max)))
        nodes[open.node] = node
    }

    /// The name in a struct node's text (`CGSize` in `{CGSize=dd}`), as a range of the shared
    /// string's bytes; nil for a struct without one (`{dd}`).
    func structName(_ node: UInt32, text: UnsafeBufferPointer<UInt8>) -> Range<Int>? {
        let entry = nodes[Int(node)]
        guard entry.code == TypeCode.structOpen else { return nil }
        var scan = Int(entry.start) + 1
        while scan < Int(entry.end), ![TypeCode.structNameEnd, TypeCode.structOpen, TypeCode.structClose].contains(text[scan]) { scan += 1 }
        return scan < Int(entry.end) && text[scan] == TypeCode.structNameEnd ? (Int(entry.start) + 1)..<scan : nil
    }

    static func character(_ byte: UInt8) -> String {
        (0x21...0x7E).contains(byte) ? String(Character(Unicode.Scalar(byte))) : "\\x" + String(byte, radix: 16)
    }

    /// A type string for a message, in quotes, cut at 40 bytes.
    static func quoted(_ text: UnsafeBufferPointer<UInt8>) -> String {
        "\"" + text.prefix(40).map(character).joined() + (text.count > 40 ? "…" : "") + "\""
    }
}
