/// Attributed strings written as text in runs (docs/mapping.md, "Attributed strings"): an
/// object with `$string` and `$runs` becomes an instance with Foundation's keys, the ones
/// `AttributedRunFolds` reads back into the same runs.
extension ArchiveEncoder {
    /// One run of `$runs`, read and checked.
    private struct Run {
        let length: UInt64
        /// The run's own attributes (`$attributes`), or nil when it uses an earlier run's.
        let attributes: Value?
        /// The index of its attributes in `NSAttributes`, in order of first use.
        let slot: Int
    }

    /// Fills entry `uid` from `text` (`$string`: a string, or a string object in its own form)
    /// and `runs` (`$runs`). One run puts its attributes under `NSAttributes`; more put an
    /// NSMutableArray of the runs' `$attributes` (in run order, which is the order of first
    /// use) there, and under `NSAttributeInfo` an NSMutableData of varints, (length, index in
    /// the array) per run. When the text stands here, the lengths must sum to its UTF-16 length.
    /// A text object with `$runs` of its own (an attributed string as the text) is refused: the
    /// decoder folds an instance only when its text is a string entry, so that shape would not
    /// come back.
    mutating func fillAttributedString(_ uid: Int, meta: ObjectMeta, text: Value, runs: Value) throws(CodecError) {
        let textKind = document.kind(text)
        guard textKind == .string || textKind == .object else {
            throw fail("an attributed string's $string takes its text: a string, or a string object", at: text)
        }
        if textKind == .object, let inner = document.members(of: text).first(where: { document.stringEquals($0.key, MappingKeys.runs) }) {
            throw fail("an attributed string's $string takes its text, not another attributed string: $runs is refused there", at: inner.key)
        }
        let read = try readRuns(runs)
        if let length = textLength(text) {
            var total: UInt64 = 0
            for run in read { total = total.addingReportingOverflow(run.length).overflow ? .max : total + run.length }
            guard total == UInt64(length) else {
                throw fail("the runs' lengths do not sum to the text's length, \(length) UTF-16 units", at: runs)
            }
        }
        if read.isEmpty {
            // No runs: an empty text, archived as Foundation does, its `NSString` alone. A text
            // written elsewhere (shared: `{"$ref": n}`) is measured where its body stands.
            var measured = text
            if document.kind(text) == .object, let ref = try document.meta(of: text).ref, let body = objectOfID[try idKey(ref)] { measured = body }
            guard textLength(measured) == 0 else { throw fail("$runs is empty for an empty $string only (\"\"): a text has a run per attributes", at: runs) }
            let string = try tree.uid(UInt64(encodeObject(text)))
            let pairs = scratch.frame()
            scratch.append(try tree.string(static: "NSString"))
            scratch.append(string)
            try fillInstance(uid, meta: meta, defaultClass: "NSAttributedString", pairs: pairs, ownPairs: 1)
            return
        }
        let string = try tree.uid(UInt64(encodeObject(text)))
        let attributes: UInt32
        var info: UInt32?
        if read.count == 1 {
            attributes = try tree.uid(UInt64(encodeObject(read[0].attributes!)))
        } else {
            let elements = scratch.frame()
            for run in read {
                guard let own = run.attributes else { continue }
                scratch.append(try tree.uid(UInt64(encodeObject(own))))
            }
            let list = try array(of: elements)
            scratch.pop(elements)
            attributes = try tree.uid(UInt64(instance(runs, meta: ObjectMeta(), defaultClass: "NSMutableArray", key: "NS.objects", value: list)))
            var bytes: [UInt8] = []
            Varint.encode(read.flatMap { [$0.length, UInt64($0.slot)] }, into: &bytes)
            let data = try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try tree.data(buffer) }
            info = try tree.uid(UInt64(instance(runs, meta: ObjectMeta(), defaultClass: "NSMutableData", key: "NS.data", value: data)))
        }
        let pairs = scratch.frame()
        scratch.append(try tree.string(static: "NSString"))
        scratch.append(string)
        if let info {
            scratch.append(try tree.string(static: "NSAttributeInfo"))
            scratch.append(info)
        }
        scratch.append(try tree.string(static: "NSAttributes"))
        scratch.append(attributes)
        try fillInstance(uid, meta: meta, defaultClass: "NSAttributedString", pairs: pairs, ownPairs: info == nil ? 2 : 3)
    }

    /// The runs of `$runs` (none for an empty text), each `{"$length": n, "$attributes": value}` or
    /// `{"$length": n, "$attributesOf": k}` with `k` an earlier run that has `$attributes`,
    /// every length a whole number of 1 or more.
    private func readRuns(_ runs: Value) throws(CodecError) -> [Run] {
        guard document.kind(runs) == .array else {
            throw fail("$runs takes an array of runs", at: runs)
        }
        var read: [Run] = []
        var slots = 0
        var cursor = document.children(of: runs)
        while let run = document.nextElement(&cursor) {
            guard document.kind(run) == .object else { throw fail("a run is an object: $length, and $attributes or $attributesOf", at: run) }
            var (length, own, source): (UInt64?, Value?, Value?) = (nil, nil, nil)
            var members = document.children(of: run)
            while let (key, value) = document.nextMember(&members) {
                if document.stringEquals(key, MappingKeys.length) {
                    length = wholeNumber(value)
                    guard let length, length >= 1 else { throw fail("$length takes a whole number of UTF-16 units, 1 or more", at: value) }
                } else if document.stringEquals(key, MappingKeys.attributes) {
                    own = value
                } else if document.stringEquals(key, MappingKeys.attributesOf) {
                    source = value
                } else {
                    throw fail("a run holds $length, and $attributes or $attributesOf", at: key)
                }
            }
            guard let length else { throw fail("a run needs its $length", at: run) }
            switch (own, source) {
            case (let own?, nil):
                read.append(Run(length: length, attributes: own, slot: slots))
                slots += 1
            case (nil, let source?):
                guard let index = wholeNumber(source), index < UInt64(read.count), read[Int(index)].attributes != nil else {
                    throw fail("$attributesOf names an earlier run that has $attributes, by its index in $runs", at: source)
                }
                read.append(Run(length: length, attributes: nil, slot: read[Int(index)].slot))
            default:
                throw fail("a run has either $attributes or $attributesOf", at: run)
            }
        }
        return read
    }

    /// A JSON integer of 0 or more.
    private func wholeNumber(_ value: Value) -> UInt64? {
        guard document.kind(value) == .number else { return nil }
        switch document.number(value) {
        case .signed(let number): return number >= 0 ? UInt64(number) : nil
        case .unsigned(let number): return number
        case .real: return nil
        }
    }

    /// The UTF-16 length of the text when it stands in `$string` itself (a string, or a string
    /// object's `$string`); nil for a reference to text written elsewhere.
    private func textLength(_ text: Value) -> Int? {
        var text = text
        if document.kind(text) == .object {
            guard let member = document.members(of: text).first(where: { document.stringEquals($0.key, MappingKeys.string) }) else { return nil }
            text = member.value
        }
        return document.kind(text) == .string ? document.stringValue(text).utf16.count : nil
    }
}
