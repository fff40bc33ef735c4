/// Reads an XML property list into a `PlistTree`, without recursion and without any DTD
/// processing: a document type with an internal subset (where entities are declared) is
/// refused, so entity expansion attacks cannot start. Only the five predefined entities and
/// character references are decoded.
struct XMLPlistReader {
    /// Nesting deeper than this is refused; the tree is flat, but nothing this deep is a
    /// real archive and it bounds the work of a hostile document.
    static let maximumNesting = 500_000

    private let text: UnsafeBufferPointer<UInt8>
    private var position = 0
    private var tree = PlistTree()
    private var scratch: [UInt8] = []
    /// Whether a break inside the top value is marked rather than refused (`salvage`).
    private let salvaging: Bool
    /// The break a salvage marked: the placeholder node standing for it, where the break is,
    /// the refusal's words, and whether it stands where a dictionary's key belongs.
    private var broken: (node: UInt32, offset: Int, reason: String, atKey: Bool)?

    private init(text: UnsafeBufferPointer<UInt8>, salvaging: Bool = false) {
        self.text = text
        self.salvaging = salvaging
    }

    static func read(_ bytes: [UInt8]) throws(CodecError) -> (tree: PlistTree, root: UInt32) {
        let (tree, root, _) = try read(bytes, salvaging: false)
        return (tree, root)
    }

    /// A damaged XML property list read as far as it goes (docs/mapping.md, "Salvage"): the
    /// values before the first point the strict read refuses, every container open there
    /// closed with what it holds, and a placeholder node where the break stands, with its mark
    /// (the offset, the refusal's words, the text from there on). A break where a dictionary
    /// expects a key is the dictionary's own `$broken` member (`Mark.standsForEntry`): its
    /// entries before it are whole, and no key is made up. Nil mark: the file is whole.
    ///
    /// Refused still, with the strict read's refusal: input that is not UTF-8, a break before
    /// the top value opens a container (nothing around it to hold a mark) or after the top
    /// value closed (no value is missing: a lost `</plist>`), and refusals that are not about
    /// the text (a limit, the deadline).
    static func salvage(_ bytes: [UInt8]) throws(CodecError) -> (tree: PlistTree, root: UInt32, broken: (node: UInt32, mark: BinaryPlistSalvage.Mark)?) {
        let (tree, root, broken) = try read(bytes, salvaging: true)
        return (tree, root, broken.map { ($0.node, BinaryPlistSalvage.Mark(offset: $0.offset, reason: $0.reason, rest: bytes[$0.offset...], standsForEntry: $0.atKey)) })
    }

    private static func read(_ bytes: [UInt8], salvaging: Bool) throws(CodecError) -> (tree: PlistTree, root: UInt32, broken: (node: UInt32, offset: Int, reason: String, atKey: Bool)?) {
        try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> (tree: PlistTree, root: UInt32, broken: (node: UInt32, offset: Int, reason: String, atKey: Bool)?) in
            if let bad = UTF8Encoding.firstInvalidOffset(buffer) {
                throw CodecError(.malformedPlist, "XML property list is not valid UTF-8", byteOffset: bad)
            }
            var reader = XMLPlistReader(text: buffer, salvaging: salvaging)
            // A `CF$UID` dictionary takes 51 bytes or more, and each entry it numbers some more:
            // UIDs up to a sixteenth of the bytes index the direct table, 4 bytes each.
            reader.tree.expectUIDs(below: buffer.count / 16)
            // An element takes 4 bytes or more (`<a/>`); a small document's tables at once.
            reader.tree.reserveSmall(values: Swift.min(buffer.count / 4, SmallDocument.values), bytes: Swift.min(buffer.count, SmallDocument.textBytes))
            let root = try reader.readDocument()
            return (reader.tree, root, reader.broken)
        }
    }

    private func fail(_ message: String, at offset: Int? = nil) -> CodecError {
        CodecError(.malformedPlist, message, byteOffset: offset ?? position)
    }

    // MARK: Document

    private mutating func readDocument() throws(CodecError) -> UInt32 {
        if text.count >= 3 && text[0] == 0xEF && text[1] == 0xBB && text[2] == 0xBF { position = 3 }
        try skipMisc()
        var wrapped = false
        if starts(with: "<plist") {
            let tag = try readTag()
            guard !tag.selfClosing else { throw fail("empty <plist/> element") }
            wrapped = true
        }
        let root = try readValue()
        // A salvaged value ends at its break: what follows is the mark's.
        if broken != nil { return root }
        try skipMisc()
        if wrapped {
            guard starts(with: "</plist") else { throw fail("expected </plist> after the top value") }
            _ = try readTag()
            try skipMisc()
        }
        guard position == text.count else { throw fail("unexpected content after the property list") }
        return root
    }

    /// Skips whitespace, comments, processing instructions and a DOCTYPE without subset.
    private mutating func skipMisc() throws(CodecError) {
        while true {
            skipWhitespace()
            if starts(with: "<?") {
                guard let end = find("?>") else { throw fail("unterminated processing instruction") }
                position = end + 2
            } else if starts(with: "<!--") {
                try skipComment()
            } else if starts(with: "<!DOCTYPE") {
                let start = position
                while position < text.count && text[position] != UInt8(ascii: ">") {
                    if text[position] == UInt8(ascii: "[") {
                        throw fail("DOCTYPE with an internal subset is refused (no entity declarations are processed)", at: position)
                    }
                    position += 1
                }
                guard position < text.count else { throw fail("unterminated DOCTYPE", at: start) }
                position += 1
            } else {
                return
            }
        }
    }

    private mutating func skipComment() throws(CodecError) {
        guard let end = find("-->") else { throw fail("unterminated comment") }
        position = end + 3
    }

    // MARK: Values

    private enum FrameKind { case array, dict }

    private struct Frame {
        var kind: FrameKind
        var mark: Int
        var expectKey: Bool
        var offset: Int
    }

    private mutating func readValue() throws(CodecError) -> UInt32 {
        var stack: [Frame] = []
        var pending: [UInt32] = []
        // Where the value being read begins (a salvage's mark and rest start there).
        var valueStart = position
        do throws(CodecError) {
            var trips = 0
            while true {
                trips &+= 1
                try ConversionDeadline.poll(trips)
                valueStart = position
                try skipWhitespaceAndComments()
                guard position < text.count else { throw fail("unexpected end of XML inside a value") }
                let tagOffset = position
                valueStart = tagOffset
                let tag = try readTag()
                var produced: UInt32
                var isKey = false
                if tag.closing {
                    guard let frame = stack.last, tag.element == (frame.kind == .array ? .array : .dict) else {
                        throw fail("unexpected closing tag </\(TextExcerpt.quote(name(of: tag)))>", at: tagOffset)
                    }
                    // Taken off only once it is closed: a salvage closes it at the break otherwise.
                    produced = try finish(frame, pending: pending[frame.mark...], at: tagOffset)
                    stack.removeLast()
                    pending.removeSubrange(frame.mark...)
                    valueStart = frame.offset
                } else {
                    // Each element's content is read into a local before it is parsed: a
                    // method of `self` called with an argument that reads on would be handed
                    // a copy of the whole reader.
                    switch tag.element {
                    case .array, .dict:
                        if tag.selfClosing {
                            produced =
                                tag.element == .array
                                ? try tree.array(EmptyCollection())
                                : try tree.dict(keys: EmptyCollection(), values: EmptyCollection())
                        } else {
                            guard stack.count < Self.maximumNesting else {
                                throw CodecError(.limitExceeded, "XML nesting deeper than \(Self.maximumNesting)", byteOffset: tagOffset, found: stack.count + 1, limit: Self.maximumNesting)
                            }
                            stack.append(Frame(kind: tag.element == .array ? .array : .dict, mark: pending.count, expectKey: true, offset: tagOffset))
                            continue
                        }
                    case .key:
                        isKey = true
                        let content = try readText(tag)
                        produced = try string(content)
                    case .string:
                        let content = try readText(tag)
                        produced = try string(content)
                    case .true, .false:
                        if !tag.selfClosing { try expectClose(tag) }
                        produced = try tree.bool(tag.element == .true)
                    case .integer:
                        let content = try readText(tag)
                        let value = try withBytes(content) { (bytes) throws(CodecError) in try Self.parseInteger(bytes, at: tagOffset) }
                        produced = try tree.integer(value)
                    case .real:
                        let content = try readText(tag)
                        let value = try withBytes(content) { (bytes) throws(CodecError) in try Self.parseReal(bytes, at: tagOffset) }
                        produced = try tree.real(value)
                    case .date:
                        let content = try readText(tag)
                        let time = withBytes(content) { DateText.parse(Self.trimmingXMLSpace($0)) }
                        guard let time else {
                            let shown = withBytes(content) { String(decoding: $0, as: UTF8.self).prefix(40) }
                            throw fail("invalid <date> \(shown)", at: tagOffset)
                        }
                        produced = try tree.date(time)
                    case .data:
                        let content = try readText(tag)
                        let base64 = withBytes(content) { $0.filter { $0 > 0x20 } }
                        let (decoded, bad) = base64.withUnsafeBufferPointer { Base64.decode($0) }
                        guard bad == nil else { throw fail("invalid base64 in <data>", at: tagOffset) }
                        produced = try decoded.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try tree.data(buffer) }
                    case .plist, .other:
                        throw fail("unknown element <\(TextExcerpt.quote(name(of: tag)))>", at: tagOffset)
                    }
                }
                guard var frame = stack.last else {
                    guard !isKey else { throw fail("<key> outside a <dict>", at: tagOffset) }
                    return produced
                }
                if frame.kind == .dict {
                    guard isKey == frame.expectKey else {
                        throw fail(isKey ? "<dict> has a <key> where a value belongs" : "<dict> has a value where a <key> belongs", at: tagOffset)
                    }
                    frame.expectKey.toggle()
                    stack[stack.count - 1] = frame
                } else if isKey {
                    throw fail("<key> inside an <array>", at: tagOffset)
                }
                pending.append(produced)
            }
        } catch {
            return try salvage(error, &stack, &pending, valueStart: valueStart)
        }
    }

    /// The top value closed at the break `error` reports, when salvaging and it stands inside
    /// the top container; else `error` itself, thrown.
    @inline(never)
    private mutating func salvage(_ error: CodecError, _ stack: inout [Frame], _ pending: inout [UInt32], valueStart: Int) throws(CodecError) -> UInt32 {
        guard salvaging, error.kind == .malformedPlist, !stack.isEmpty else { throw error }
        do throws(CodecError) {
            return try closeAtBreak(error, &stack, &pending, valueStart: valueStart)
        } catch {
            // A container the break leaves that cannot be closed (a `CF$UID` out of range).
        }
        throw error
    }

    /// Marks the break `error` reports and closes every open container around it, innermost
    /// first, each with what it holds; returns the top value. The mark's offset is where the
    /// value that could not be read begins (`valueStart`: its tag, or a container's opening
    /// tag), so that its text is the rest; throws `error` when the break leaves nothing around
    /// it to hold the mark.
    @inline(never)
    private mutating func closeAtBreak(_ error: CodecError, _ stack: inout [Frame], _ pending: inout [UInt32], valueStart: Int) throws(CodecError) -> UInt32 {
        var offset = min(max(min(error.byteOffset ?? position, valueStart), 0), text.count)
        var reason = error.message
        // A container opened where a dictionary's key belongs has no place (the strict read
        // refuses it once it closes): the break is where it begins, and what it holds is the
        // mark's rest.
        if let misplaced = (1..<max(stack.count, 1)).first(where: { stack[$0 - 1].kind == .dict && stack[$0 - 1].expectKey }) {
            offset = stack[misplaced].offset
            reason = "<dict> has a value where a <key> belongs"
            pending.removeSubrange(stack[misplaced].mark...)
            stack.removeSubrange(misplaced...)
        }
        // A dictionary that broke before its first entry holds nothing read: it is the mark
        // itself, in its place (the top one leaves nothing to hold it).
        if let innermost = stack.last, innermost.kind == .dict, innermost.expectKey, pending.count == innermost.mark {
            offset = innermost.offset
            stack.removeLast()
            guard !stack.isEmpty else { throw error }
        }
        // A UID (`<dict><key>CF$UID</key>` and its integer) that broke before its value is
        // the mark itself too: dropped, an empty dictionary would stand where a UID did.
        if let innermost = stack.last, innermost.kind == .dict, !innermost.expectKey, pending.count == innermost.mark + 1,
            tree.bytes(tree.node(pending[innermost.mark]), equal: "CF$UID")
        {
            offset = innermost.offset
            pending.removeSubrange(innermost.mark...)
            stack.removeLast()
            guard !stack.isEmpty else { throw error }
        }
        let innermost = stack[stack.count - 1]
        let atKey = innermost.kind == .dict && innermost.expectKey
        let node = try tree.placeholder()
        broken = (node, offset, reason, atKey)
        // Where a key belongs, a key no reader sees (the writer writes the mark's member).
        if atKey { pending.append(try tree.placeholder(key: true)) }
        pending.append(node)
        while var frame = stack.popLast() {
            frame.expectKey = true
            let produced = try finish(frame, pending: pending[frame.mark...], at: frame.offset)
            pending.removeSubrange(frame.mark...)
            if stack.isEmpty { return produced }
            pending.append(produced)
        }
        preconditionFailure("the stack held a container")
    }

    /// Builds the container for a closed frame; a dict of the single key `CF$UID` with an
    /// integer value is a UID, as Apple's XML writer encodes them.
    private mutating func finish(_ frame: Frame, pending: ArraySlice<UInt32>, at offset: Int) throws(CodecError) -> UInt32 {
        if frame.kind == .array { return try tree.array(pending) }
        guard frame.expectKey, pending.count % 2 == 0 else { throw fail("<dict> ends after a <key> without a value", at: offset) }
        if pending.count == 2, tree.bytes(tree.node(pending[pending.startIndex]), equal: "CF$UID") {
            let value = tree.node(pending[pending.startIndex + 1])
            if value.kind == .int {
                guard !value.isUnsigned, Int64(bitPattern: value.bits) >= 0, value.bits <= UInt64(UInt32.max) else {
                    throw fail("CF$UID value out of range", at: frame.offset)
                }
                return try tree.uid(value.bits)
            }
        }
        return try pending.withUnsafeBufferPointer { (pairs) throws(CodecError) -> UInt32 in try tree.dict(pairs: pairs) }
    }

    // MARK: Lexing

    /// The elements a property list is made of, told apart by their names' bytes (a name
    /// is ASCII: `isNameByte`); `other` is any other name.
    private enum Element {
        case array, dict, key, string, `true`, `false`, integer, real, date, data, plist, other

        /// Told by the name's bytes read as one little-endian word (no name here is longer
        /// than 7 bytes; a longer one is `other`).
        init(name: UnsafeBufferPointer<UInt8>) {
            guard name.count < 8 else {
                self = .other
                return
            }
            var word: UInt64 = 0
            var index = name.count
            while index > 0 {
                index -= 1
                word = word &<< 8 | UInt64(name[index])
            }
            switch word {
            case 0x79_656B: self = .key
            case 0x7463_6964: self = .dict
            case 0x6174_6164: self = .data
            case 0x6574_6164: self = .date
            case 0x6C61_6572: self = .real
            case 0x6575_7274: self = .true
            case 0x79_6172_7261: self = .array
            case 0x65_736C_6166: self = .false
            case 0x74_7369_6C70: self = .plist
            case 0x676E_6972_7473: self = .string
            case 0x72_6567_6574_6E69: self = .integer
            default: self = .other
            }
        }
    }

    /// A tag just read; its name is `nameStart..<nameEnd` of the text, for messages.
    private struct Tag {
        var element: Element
        var nameStart: Int
        var nameEnd: Int
        var closing: Bool
        var selfClosing: Bool
    }

    private func name(of tag: Tag) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: text[tag.nameStart..<tag.nameEnd]), as: UTF8.self)
    }

    /// Reads the tag at the cursor. Works on locals and moves the cursor once, at the end (a
    /// tag is read for every value and every closing).
    private mutating func readTag() throws(CodecError) -> Tag {
        let text = text
        let count = text.count
        let start = position
        guard start < count, text[start] == UInt8(ascii: "<") else { throw fail("expected an element") }
        var at = start + 1
        let closing = at < count && text[at] == UInt8(ascii: "/")
        if closing { at += 1 }
        let nameStart = at
        while at < count, Self.isNameByte(text[at]) { at += 1 }
        guard at > nameStart else { throw fail("malformed tag", at: start) }
        var tag = Tag(element: Element(name: UnsafeBufferPointer(rebasing: text[nameStart..<at])), nameStart: nameStart, nameEnd: at, closing: closing, selfClosing: false)
        // Attributes are skipped (only <plist version="1.0"> has any); quotes are honoured.
        var quote: UInt8 = 0
        while at < count {
            let byte = text[at]
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == UInt8(ascii: ">") {
                break
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: "<") {
                // No markup inside a tag: `<key<x/>` is not an empty key.
                throw fail("unterminated tag <\(TextExcerpt.quote(name(of: tag)))", at: start)
            }
            at += 1
        }
        guard at < count else { throw fail("unterminated tag <\(TextExcerpt.quote(name(of: tag)))", at: start) }
        tag.selfClosing = text[at - 1] == UInt8(ascii: "/") && !closing
        position = at + 1
        return tag
    }

    /// ASCII letters and digits, `_`, `-`, `:` and `.`: one bit per byte value, in two words.
    @inline(__always)
    private static func isNameByte(_ byte: UInt8) -> Bool {
        // Bits 0x2D, 0x2E, 0x30–0x3A; then 0x41–0x5A, 0x5F, 0x61–0x7A less 0x40.
        let low: UInt64 = 0x07FF_6000_0000_0000
        let high: UInt64 = 0x07FF_FFFE_87FF_FFFE
        let word = byte < 64 ? low : byte < 128 ? high : 0
        return (word >> UInt64(byte & 63)) & 1 != 0
    }

    /// Reads the closing tag of `open`, an element of the property list's own (not `other`).
    /// The usual spelling, `</name>` right at the cursor, is compared as it stands; any other
    /// goes through `readTag` (spaces before `>`, a mismatch and its refusal).
    private mutating func expectClose(_ open: Tag) throws(CodecError) {
        let nameCount = open.nameEnd - open.nameStart
        let end = position + nameCount + 3
        if end <= text.count, text[position] == UInt8(ascii: "<"), text[position + 1] == UInt8(ascii: "/"), text[end - 1] == UInt8(ascii: ">"),
            ByteStringTable.bytesEqual(text.baseAddress! + position + 2, text.baseAddress! + open.nameStart, count: nameCount)
        {
            position = end
            return
        }
        let offset = position
        let tag = try readTag()
        guard tag.closing, tag.element == open.element else { throw fail("expected </\(TextExcerpt.quote(name(of: open)))>", at: offset) }
    }

    /// Where an element's character data is once read: a range of the text, when it holds no
    /// reference, CDATA section or comment (nearly always: no copy), or in `scratch`, decoded.
    private enum Content {
        case text(Range<Int>)
        case scratch
    }

    /// Reads character data up to the element's closing tag, decoding entity and character
    /// references and CDATA sections.
    private mutating func readText(_ tag: Tag) throws(CodecError) -> Content {
        if tag.selfClosing { return .text(position..<position) }
        let start = position
        let stop = firstMarkup(from: position)
        if stop < text.count, text[stop] == UInt8(ascii: "<"),
            stop + 1 == text.count || text[stop + 1] != UInt8(ascii: "!") || !(starts(with: "<![CDATA[", at: stop) || starts(with: "<!--", at: stop))
        {
            position = stop
            try expectClose(tag)
            return .text(start..<stop)
        }
        scratch.removeAll(keepingCapacity: true)
        while true {
            let stop = firstMarkup(from: position)
            scratch.append(contentsOf: UnsafeBufferPointer(rebasing: text[position..<stop]))
            position = stop
            guard position < text.count else { throw fail("unterminated <\(TextExcerpt.quote(name(of: tag)))>") }
            if text[position] == UInt8(ascii: "&") {
                try readReference()
            } else if starts(with: "<![CDATA[") {
                guard let end = find("]]>") else { throw fail("unterminated CDATA section") }
                scratch.append(contentsOf: UnsafeBufferPointer(rebasing: text[(position + 9)..<end]))
                position = end + 3
            } else if starts(with: "<!--") {
                try skipComment()
            } else {
                try expectClose(tag)
                return .scratch
            }
        }
    }

    /// The first `<` or `&` at or after `start` (or the end of the text), eight bytes a step
    /// while eight remain.
    private func firstMarkup(from start: Int) -> Int {
        var position = start
        let count = text.count
        let raw = UnsafeRawPointer(text.baseAddress!)
        while position + 8 <= count {
            let word = UInt64(littleEndian: raw.loadUnaligned(fromByteOffset: position, as: UInt64.self))
            let marks = JSONText.bytesEqual(word, UInt8(ascii: "<")) | JSONText.bytesEqual(word, UInt8(ascii: "&"))
            if marks != 0 { return position + marks.trailingZeroBitCount / 8 }
            position += 8
        }
        while position < count, text[position] != UInt8(ascii: "<"), text[position] != UInt8(ascii: "&") { position += 1 }
        return position
    }

    /// The text of a string element, interned.
    private mutating func string(_ content: Content) throws(CodecError) -> UInt32 {
        switch content {
        case .text(let range):
            return try tree.string(UnsafeBufferPointer(rebasing: text[range]))
        case .scratch:
            let bytes = scratch
            return try bytes.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try tree.string(buffer) }
        }
    }

    /// `body` of an element's character data.
    private func withBytes<Result, Failure>(_ content: Content, _ body: (UnsafeBufferPointer<UInt8>) throws(Failure) -> Result) throws(Failure) -> Result {
        switch content {
        case .text(let range): return try body(UnsafeBufferPointer(rebasing: text[range]))
        case .scratch: return try scratch.withUnsafeBufferPointer { (buffer) throws(Failure) -> Result in try body(buffer) }
        }
    }

    private mutating func readReference() throws(CodecError) {
        let start = position
        var end = start + 1
        while end < text.count, end - start <= 12, text[end] != UInt8(ascii: ";") { end += 1 }
        guard end < text.count, text[end] == UInt8(ascii: ";") else { throw fail("unterminated entity reference", at: start) }
        let name = String(decoding: UnsafeBufferPointer(rebasing: text[(start + 1)..<end]), as: UTF8.self)
        position = end + 1
        switch name {
        case "amp": scratch.append(UInt8(ascii: "&"))
        case "lt": scratch.append(UInt8(ascii: "<"))
        case "gt": scratch.append(UInt8(ascii: ">"))
        case "quot": scratch.append(UInt8(ascii: "\""))
        case "apos": scratch.append(UInt8(ascii: "'"))
        default:
            var value: UInt32?
            if name.hasPrefix("#x") {
                value = UInt32(name.dropFirst(2), radix: 16)
            } else if name.hasPrefix("#") {
                value = UInt32(name.dropFirst(1), radix: 10)
            }
            guard let value, value != 0, let scalar = Unicode.Scalar(value) else {
                throw fail("unknown or invalid entity &\(name); (no DTD entities are expanded)", at: start)
            }
            UTF8Encoding.append(scalar: scalar.value, to: &scratch)
        }
    }

    /// An `<integer>`: decimal (signed, or unsigned above `Int64.max`) or `0x` hexadecimal,
    /// between XML whitespace. Up to 18 decimal digits, nearly every integer, are read here;
    /// anything else as Swift's integer parsing reads it.
    private static func parseInteger(_ content: UnsafeBufferPointer<UInt8>, at offset: Int) throws(CodecError) -> PlistInteger {
        let trimmed = Self.trimmingXMLSpace(content)
        if let value = Self.shortDecimal(trimmed) { return PlistInteger(signed: value) }
        let textValue = String(decoding: trimmed, as: UTF8.self)
        if let value = Int64(textValue) { return PlistInteger(signed: value) }
        if let value = UInt64(textValue) { return PlistInteger(unsigned: value) }
        if textValue.hasPrefix("0x"), let value = UInt64(textValue.dropFirst(2), radix: 16) {
            return PlistInteger(unsigned: value)
        }
        throw CodecError(.malformedPlist, "invalid <integer> \(textValue.prefix(40))", byteOffset: offset)
    }

    /// `[+-]?[0-9]{1,18}`, which `Int64` holds whatever the digits; nil for anything else.
    private static func shortDecimal(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        var index = 0
        let negative = text.first == UInt8(ascii: "-")
        if negative || text.first == UInt8(ascii: "+") { index = 1 }
        guard (1...18).contains(text.count - index) else { return nil }
        var value: Int64 = 0
        while index < text.count {
            let digit = text[index] &- UInt8(ascii: "0")
            guard digit < 10 else { return nil }
            value = value &* 10 &+ Int64(digit)
            index += 1
        }
        return negative ? -value : value
    }

    private static func parseReal(_ content: UnsafeBufferPointer<UInt8>, at offset: Int) throws(CodecError) -> Double {
        let trimmed = Self.trimmingXMLSpace(content)
        if let value = jsonSpelledReal(trimmed) { return value }
        let textValue = String(decoding: trimmed, as: UTF8.self)
        switch textValue.lowercased() {
        case "nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default:
            guard let value = Double(textValue), !textValue.isEmpty else {
                throw CodecError(.malformedPlist, "invalid <real> \(textValue.prefix(40))", byteOffset: offset)
            }
            return value
        }
    }

    /// The value of a `<real>`'s text when the text is a JSON number, as Apple's writer spells
    /// every finite real (`0.72549019607843135`, `63.212`, `4`): JSON's grammar is a part of
    /// what `Double(String)` reads, and `JSONNumber.read` gives the same double for it without
    /// making a `String` (a full-precision real, `JSONNumber.exactDecimal`, costs a tenth of
    /// `Double(String)`). Nil for any other text (`.5`, `+1.5`, `nan`, a number past a
    /// double's range), which `parseReal` reads as before.
    private static func jsonSpelledReal(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        guard !text.isEmpty, let read = try? JSONNumber.read(text, at: 0), read.end == text.count else { return nil }
        switch read.number {
        case .real(let value): return value
        // An integer's zero has no sign; `-0` is the real −0.0.
        case .signed(let value): return value == 0 && text[0] == UInt8(ascii: "-") ? -0.0 : Double(value)
        case .unsigned(let value): return Double(value)
        }
    }

    /// `bytes` without leading and trailing XML whitespace.
    private static func trimmingXMLSpace(_ bytes: UnsafeBufferPointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        var start = 0
        var end = bytes.count
        while start < end && isSpace(bytes[start]) { start += 1 }
        while end > start && isSpace(bytes[end - 1]) { end -= 1 }
        return UnsafeBufferPointer(rebasing: bytes[start..<end])
    }

    // MARK: Cursor helpers

    private mutating func skipWhitespace() {
        let text = text
        var at = position
        while at < text.count, text[at] == 0x20 || text[at] == 0x0A || text[at] == 0x0D || text[at] == 0x09 { at += 1 }
        position = at
    }

    private mutating func skipWhitespaceAndComments() throws(CodecError) {
        while true {
            skipWhitespace()
            guard position + 1 < text.count, text[position + 1] == UInt8(ascii: "!"), starts(with: "<!--") else { return }
            try skipComment()
        }
    }

    private func starts(with literal: StaticString) -> Bool { starts(with: literal, at: position) }

    private func starts(with literal: StaticString, at position: Int) -> Bool {
        literal.withUTF8Buffer { prefix in
            guard text.count - position >= prefix.count else { return false }
            for index in 0..<prefix.count where text[position + index] != prefix[index] { return false }
            return true
        }
    }

    /// Offset of the next occurrence of `literal` at or after the cursor.
    private func find(_ literal: StaticString) -> Int? {
        literal.withUTF8Buffer { needle -> Int? in
            var index = position
            while index + needle.count <= text.count {
                if text[index] == needle[0] {
                    var matched = true
                    for offset in 1..<needle.count where text[index + offset] != needle[offset] {
                        matched = false
                        break
                    }
                    if matched { return index }
                }
                index += 1
            }
            return nil
        }
    }
}
