extension JSONDocument {
    /// The document that container `value` of this one is when its text stands alone: what
    /// `JSONDocument(parsing:payloadNesting:)` makes of that text, taken from this document's
    /// index instead of parsing the text again (the encoder asks it of every nested payload,
    /// `NestedPayload`).
    ///
    /// Why it is the same document: the text was validated as part of this one (any part of a
    /// valid document is valid, no deeper and no larger), so a parse of it cannot fail, and
    /// everything a parse records is local to the text: the containers inside it in the same
    /// order with the same counts, its keys' spans, the `$id` members and `$data` payloads whose
    /// values lie inside it (not the value itself, which stands alone as no member's value),
    /// every position less the text's start and every container index less `value`'s.
    /// The nesting is the deepest chain of containers inside it, found from the containers'
    /// extents; the value count is one for the root and one per child of each container.
    ///
    /// Linear in the payload's containers, plus a binary search of the lists of members and
    /// payloads.
    func payloadDocument(_ value: Value, payloadNesting: Int) -> JSONDocument {
        precondition(isContainer(value), "a payload's document is an object")
        let first = value.container
        let start = Int(value.offset)
        let end = Int(containers[first].end)
        let last = first + Int(containers[first].descendants)
        let shift = UInt32(start)
        let base = UInt32(first)
        // Filled in a buffer the document then keeps (`FrozenTable`).
        var inner = InPlaceStack<Container>(capacity: last - first + 1)
        var values = 1
        // Ends of the containers open around the one being read, innermost last (a small
        // payload's nesting at once, `SmallDocument`).
        var open: [UInt32] = []
        open.reserveCapacity(Swift.min(last - first + 1, SmallDocument.nesting))
        var depth = 0
        for index in first...last {
            let entry = containers[index]
            // A container that ends before this one does is no longer open: containers nest
            // or follow one another, never overlap.
            while let enclosing = open.last, enclosing < entry.end { open.removeLast() }
            open.append(entry.end)
            depth = max(depth, open.count)
            values += Int(entry.count)
            inner.push(Container(end: entry.end - shift, count: entry.count, descendants: entry.descendants))
        }
        // The source alone, not `self`: a closure that reads `self` holds a copy of the document.
        let source = self.source
        let rebase = { (value: Value) -> Value in
            let byte = source[Int(value.offset)]
            let isContainer = byte == UInt8(ascii: "{") || byte == UInt8(ascii: "[")
            return Value(offset: value.offset - shift, payload: isContainer ? value.payload - base : value.payload)
        }
        let noted = notedMembers
        let members = Self.positions(of: noted.count, from: start, to: end) { Int(noted[$0].value.offset) }.map { index in
            (object: rebase(noted[index].object), value: rebase(noted[index].value))
        }
        let outerPayloads = nestedPayloads
        // The value itself is no member's value in its own document: payloads after its start.
        let payloads = Self.positions(of: outerPayloads.count, from: start + 1, to: end) { Int(outerPayloads[$0].offset) }.map { rebase(outerPayloads[$0]) }
        return JSONDocument(
            source: Array(source[start..<end]), containers: FrozenTable(adopting: inner),
            notes: JSONNotes(members: members, payloads: payloads, payloadNesting: payloadNesting, depth: depth, valueCount: values),
            mappingKeySpans: FrozenTable(mappingKeySpans[first...last]), scalarEnds: Self.bits(of: scalarEnds, from: start, count: end - start))
    }

    /// Bits `start..<(start + count)` of `bitmap` (bit `i & 63` of word `i >> 6`) as a bitmap of
    /// their own, sized as the parser sizes one for `count` bytes (`count / 64 + 1` words).
    static func bits(of bitmap: [UInt64], from start: Int, count: Int) -> [UInt64] {
        let words = count / 64 + 1
        let first = start >> 6
        let shift = UInt64(start & 63)
        var result = [UInt64](filledWith: 0, count: words)
        for index in 0..<words where first + index < bitmap.count {
            var word = bitmap[first + index] &>> shift
            if shift != 0, first + index + 1 < bitmap.count { word |= bitmap[first + index + 1] &<< (64 - shift) }
            result[index] = word
        }
        // Nothing past the last byte: the parser's bitmap has no mark there either.
        let past = count & 63
        result[words - 1] &= past == 0 ? 0 : UInt64.max &>> UInt64(64 - past)
        return result
    }

    /// The indices of a list of `count` items, sorted by `position`, whose position is in
    /// `start..<end`.
    private static func positions(of count: Int, from start: Int, to end: Int, _ position: (Int) -> Int) -> Range<Int> {
        func firstAtOrAfter(_ bound: Int) -> Int {
            var (low, high) = (0, count)
            while low < high {
                let middle = (low + high) / 2
                if position(middle) < bound { low = middle + 1 } else { high = middle }
            }
            return low
        }
        let lower = firstAtOrAfter(start)
        return lower..<max(lower, firstAtOrAfter(end))
    }

    private init(source: [UInt8], containers: FrozenTable<Container>, notes: JSONNotes, mappingKeySpans: FrozenTable<UInt8>, scalarEnds: [UInt64]) {
        self.source = source
        self.containers = containers
        self.notes = notes
        self.mappingKeySpans = mappingKeySpans
        self.scalarEnds = scalarEnds
    }
}
