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
                    guard let frame = stack.last, tag.name == (frame.kind == .array ? "array" : "dict") else {
                        throw fail("unexpected closing tag </\(TextExcerpt.quote(tag.name))>", at: tagOffset)
                    }
                    // Taken off only once it is closed: a salvage closes it at the break otherwise.
                    produced = try finish(frame, pending: pending[frame.mark...], at: tagOffset)
                    stack.removeLast()
                    pending.removeSubrange(frame.mark...)
                    valueStart = frame.offset
                } else {
                    switch tag.name {
                    case "array", "dict":
                        if tag.selfClosing {
                            produced =
                                tag.name == "array"
                                ? try tree.array(EmptyCollection())
                                : try tree.dict(keys: EmptyCollection(), values: EmptyCollection())
                        } else {
                            guard stack.count < Self.maximumNesting else {
                                throw CodecError(.limitExceeded, "XML nesting deeper than \(Self.maximumNesting)", byteOffset: tagOffset, found: stack.count + 1, limit: Self.maximumNesting)
                            }
                            stack.append(Frame(kind: tag.name == "array" ? .array : .dict, mark: pending.count, expectKey: true, offset: tagOffset))
                            continue
                        }
                    case "key":
                        isKey = true
                        produced = try tree.string(bytes: readText(tag))
                    case "string":
                        produced = try tree.string(bytes: readText(tag))
                    case "true", "false":
                        if !tag.selfClosing { try expectClose(tag.name) }
                        produced = try tree.bool(tag.name == "true")
                    case "integer":
                        produced = try tree.integer(parseInteger(readText(tag), at: tagOffset))
                    case "real":
                        produced = try tree.real(parseReal(readText(tag), at: tagOffset))
                    case "date":
                        let content = try readText(tag)
                        guard let time = DateText.parse(content.trimmedXMLSpace()) else {
                            throw fail("invalid <date> \(String(decoding: content, as: UTF8.self).prefix(40))", at: tagOffset)
                        }
                        produced = try tree.date(time)
                    case "data":
                        let content = try readText(tag).filter { $0 > 0x20 }
                        let (decoded, bad) = content.withUnsafeBufferPointer { Base64.decode($0) }
                        guard bad == nil else { throw fail("invalid base64 in <data>", at: tagOffset) }
                        produced = try decoded.withUnsafeBufferPointer { (buffer) throws(CodecError) -> UInt32 in try tree.data(buffer) }
                    default:
                        throw fail("unknown element <\(TextExcerpt.quote(tag.name))>", at: tagOffset)
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
            tree.bytes(tree.node(pending[innermost.mark])).elementsEqual("CF$UID".utf8)
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
        let count = pending.count / 2
        var keys: [UInt32] = []
        var values: [UInt32] = []
        keys.reserveCapacity(count)
        values.reserveCapacity(count)
        var index = pending.startIndex
        while index < pending.endIndex {
            keys.append(pending[index])
            values.append(pending[index + 1])
            index += 2
        }
        if count == 1, tree.bytes(tree.node(keys[0])).elementsEqual("CF$UID".utf8) {
            let value = tree.node(values[0])
            if value.kind == .int {
                guard !value.isUnsigned, Int64(bitPattern: value.bits) >= 0, value.bits <= UInt64(UInt32.max) else {
                    throw fail("CF$UID value out of range", at: frame.offset)
                }
                return try tree.uid(value.bits)
            }
        }
        return try tree.dict(keys: keys, values: values)
    }

    // MARK: Lexing

    private struct Tag {
        var name: String
        var closing: Bool
        var selfClosing: Bool
    }

    private mutating func readTag() throws(CodecError) -> Tag {
        let start = position
        guard position < text.count, text[position] == UInt8(ascii: "<") else { throw fail("expected an element") }
        position += 1
        var closing = false
        if position < text.count && text[position] == UInt8(ascii: "/") {
            closing = true
            position += 1
        }
        let nameStart = position
        while position < text.count, isNameByte(text[position]) { position += 1 }
        guard position > nameStart else { throw fail("malformed tag", at: start) }
        let name = String(decoding: UnsafeBufferPointer(rebasing: text[nameStart..<position]), as: UTF8.self)
        // Attributes are skipped (only <plist version="1.0"> has any); quotes are honoured.
        var quote: UInt8 = 0
        while position < text.count {
            let byte = text[position]
            if quote != 0 {
                if byte == quote { quote = 0 }
            } else if byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "'") {
                quote = byte
            } else if byte == UInt8(ascii: ">") {
                break
            } else if byte == UInt8(ascii: "<") {
                // No markup inside a tag: `<key<x/>` is not an empty key.
                throw fail("unterminated tag <\(TextExcerpt.quote(name))", at: start)
            }
            position += 1
        }
        guard position < text.count else { throw fail("unterminated tag <\(TextExcerpt.quote(name))", at: start) }
        let selfClosing = text[position - 1] == UInt8(ascii: "/") && !closing
        position += 1
        return Tag(name: name, closing: closing, selfClosing: selfClosing)
    }

    private func isNameByte(_ byte: UInt8) -> Bool {
        (byte >= 0x61 && byte <= 0x7A) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x30 && byte <= 0x39)
            || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-") || byte == UInt8(ascii: ":") || byte == UInt8(ascii: ".")
    }

    private mutating func expectClose(_ name: String) throws(CodecError) {
        let offset = position
        let tag = try readTag()
        guard tag.closing, tag.name == name else { throw fail("expected </\(TextExcerpt.quote(name))>", at: offset) }
    }

    /// Reads character data up to the element's closing tag, decoding entity and character
    /// references and CDATA sections.
    private mutating func readText(_ tag: Tag) throws(CodecError) -> [UInt8] {
        scratch.removeAll(keepingCapacity: true)
        if tag.selfClosing { return [] }
        while true {
            guard position < text.count else { throw fail("unterminated <\(TextExcerpt.quote(tag.name))>") }
            let byte = text[position]
            if byte == UInt8(ascii: "&") {
                try readReference()
            } else if byte == UInt8(ascii: "<") {
                if starts(with: "<![CDATA[") {
                    guard let end = find("]]>") else { throw fail("unterminated CDATA section") }
                    scratch.append(contentsOf: UnsafeBufferPointer(rebasing: text[(position + 9)..<end]))
                    position = end + 3
                } else if starts(with: "<!--") {
                    try skipComment()
                } else {
                    try expectClose(tag.name)
                    return scratch
                }
            } else {
                scratch.append(byte)
                position += 1
            }
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

    private func parseInteger(_ content: [UInt8], at offset: Int) throws(CodecError) -> PlistInteger {
        let textValue = String(decoding: content.trimmedXMLSpace(), as: UTF8.self)
        if let value = Int64(textValue) { return PlistInteger(signed: value) }
        if let value = UInt64(textValue) { return PlistInteger(unsigned: value) }
        if textValue.hasPrefix("0x"), let value = UInt64(textValue.dropFirst(2), radix: 16) {
            return PlistInteger(unsigned: value)
        }
        throw fail("invalid <integer> \(textValue.prefix(40))", at: offset)
    }

    private func parseReal(_ content: [UInt8], at offset: Int) throws(CodecError) -> Double {
        let textValue = String(decoding: content.trimmedXMLSpace(), as: UTF8.self)
        switch textValue.lowercased() {
        case "nan": return .nan
        case "inf", "+inf", "infinity", "+infinity": return .infinity
        case "-inf", "-infinity": return -.infinity
        default:
            guard let value = Double(textValue), !textValue.isEmpty else {
                throw fail("invalid <real> \(textValue.prefix(40))", at: offset)
            }
            return value
        }
    }

    // MARK: Cursor helpers

    private mutating func skipWhitespace() {
        while position < text.count, text[position] == 0x20 || text[position] == 0x0A || text[position] == 0x0D || text[position] == 0x09 {
            position += 1
        }
    }

    private mutating func skipWhitespaceAndComments() throws(CodecError) {
        while true {
            skipWhitespace()
            guard starts(with: "<!--") else { return }
            try skipComment()
        }
    }

    private func starts(with literal: StaticString) -> Bool {
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

extension [UInt8] {
    /// The bytes without leading and trailing XML whitespace.
    func trimmedXMLSpace() -> ArraySlice<UInt8> {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 }
        var start = 0
        var end = count
        while start < end && isSpace(self[start]) { start += 1 }
        while end > start && isSpace(self[end - 1]) { end -= 1 }
        return self[start..<end]
    }
}
