/// Every `$id` of a lossless document, found before the plain view is written: a `$ref` may
/// come before the body it names (placement is breadth-first), and the writer must know at the
/// reference what the body is.
///
/// One pass over the whole document with an explicit stack (as deep as the document, never the
/// thread's stack), one hash lookup per `$id`: linear in the document's size. Identities are
/// per document (docs/mapping.md, "Nested payloads"): the key is the identity's text with the
/// document it belongs to (`scope`: 0 for the outermost, the offset of its wrapper plus one for
/// a nested one), so equal numbers in a payload and around it name different objects.
struct PlainIdentities {
    struct Key: Hashable {
        var scope: UInt32
        var number: Int64
        /// The identity's text when it is not an integer that fits 64 bits signed (a string's
        /// after a quote).
        var text: String?
    }

    struct Entry {
        /// The object that carries the `$id`.
        let body: JSONDocument.Value
        /// Its plain view is a value (`PlainShape.isValue`): written again at every reference.
        let isValue: Bool
        /// Its body stands where the plain view writes nothing (an attributed string's runs, a
        /// class's chain): the first reference written places the body instead.
        let dropped: Bool
    }

    private(set) var entries: [Entry] = []
    private var index: [Key: Int32] = [:]

    /// The entry an identity names in `scope`.
    func entry(_ identity: JSONDocument.Value, scope: UInt32, in document: JSONDocument) -> Int? {
        index[Self.key(identity, scope: scope, in: document)].map(Int.init)
    }

    static func key(_ identity: JSONDocument.Value, scope: UInt32, in document: JSONDocument) -> Key {
        if document.kind(identity) == .number, case .signed(let number) = document.number(identity) {
            return Key(scope: scope, number: number, text: nil)
        }
        // A string by its text (escapes resolved, behind a quote no number text starts with),
        // anything else by its JSON text.
        if document.kind(identity) == .string { return Key(scope: scope, number: 0, text: "\"" + document.stringValue(identity)) }
        let range = document.sourceRange(of: identity)
        return Key(scope: scope, number: 0, text: String(decoding: document.source[range], as: UTF8.self))
    }

    /// What one open container of the walk still has to visit.
    private struct Frame {
        var cursor: JSONDocument.Cursor
        var isObject: Bool
        var shape: PlainShape?
        var scope: UInt32
        var dropped: Bool
        /// Members left that may hold a `$` key (`JSONDocument.mappingKeySpan`).
        var mappingKeys = 0
    }

    /// Indexes every `$id` of `document`. The first body of an identity in a scope is the one
    /// named (the encoder refuses a document that gives one twice; the writer writes a second
    /// body as a reference to the first).
    init(_ document: JSONDocument) throws(CodecError) {
        var stack: [Frame] = []
        var pending: (value: JSONDocument.Value, scope: UInt32, dropped: Bool)? = (document.root, 0, false)
        var steps = 0
        while true {
            if let (value, scope, dropped) = pending {
                pending = nil
                switch document.kind(value) {
                case .array:
                    stack.append(Frame(cursor: document.children(of: value), isObject: false, shape: nil, scope: scope, dropped: dropped))
                case .object:
                    let shape = try document.plainShape(of: value)
                    if let identity = shape.identity {
                        let key = Self.key(identity, scope: scope, in: document)
                        if index[key] == nil {
                            index[key] = Int32(entries.count)
                            entries.append(Entry(body: value, isValue: shape.isValue, dropped: dropped))
                        }
                    }
                    let inner = shape.opensDocument ? value.offset &+ 1 : scope
                    stack.append(
                        Frame(
                            cursor: document.children(of: value), isObject: true, shape: shape, scope: inner, dropped: dropped,
                            mappingKeys: document.mappingKeySpan(of: value)))
                default:
                    break
                }
            }
            steps &+= 1
            if steps & 0xFFFF == 0 { try ConversionDeadline.check() }
            guard var frame = stack.popLast() else { break }
            if frame.isObject {
                guard let (key, value) = document.nextMember(&frame.cursor) else { continue }
                var written = true
                if let shape = frame.shape {
                    if case .members = shape.form, frame.mappingKeys == 0 {
                        // Past the `$` keys: a data key, written.
                    } else {
                        written = document.plainWrites(key: key, value: value, of: shape)
                    }
                }
                if frame.mappingKeys > 0 { frame.mappingKeys -= 1 }
                // A scalar holds no identity: nothing to visit.
                if document.isContainer(value) { pending = (value, frame.scope, frame.dropped || !written) }
            } else {
                guard let element = document.nextElement(&frame.cursor) else { continue }
                if document.isContainer(element) { pending = (element, frame.scope, frame.dropped) }
            }
            stack.append(frame)
        }
    }
}

extension JSONDocument {
    /// Whether the plain view of an object of `shape` writes member (`key`, `value`), its
    /// value in place or its content.
    func plainWrites(key: Value, value: Value, of shape: PlainShape) -> Bool {
        switch shape.form {
        case .reference, .null: return false
        case .content(let kept), .exactNumber(let kept), .date(let kept), .typedStream(let kept), .sequence(let kept), .pairs(let kept),
            .groups(let kept):
            return value.offset == kept.offset
        case .url(let base, let relative):
            return value.offset == relative.offset || value.offset == base?.offset
        case .members:
            return isDataKey(key) || renamedKeyIndex(key) != nil
        }
    }
}
