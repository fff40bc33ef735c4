extension JSONDocument {
    /// The bytes of a data value (`$data`, `$bytes`): base64 text, a readable form of bytes
    /// (`BytesForm`), or a nested payload's document (`NestedPayload`) encoded back to the
    /// bytes of its kind and format.
    func dataBytes(_ value: Value) throws(CodecError) -> [UInt8] {
        guard kind(value) == .object else { return try base64Bytes(value) }
        if let bytes = try bytesFormBytes(value) { return bytes }
        return try payloadBytes(value)
    }

    /// The `$id` members that are this document's own: those not inside a nested payload's
    /// document (each payload numbers its objects for itself).
    var ownNotedMembers: [(object: Value, value: Value)] {
        guard !nestedPayloads.isEmpty else { return notedMembers }
        // Both lists are in document order and payloads do not overlap but by nesting: one
        // pass, skipping each payload (and those inside it) whole.
        var own: [(object: Value, value: Value)] = []
        own.reserveCapacity(notedMembers.count)
        var next = 0
        var skippedUpTo: UInt32 = 0
        for member in notedMembers {
            while next < nestedPayloads.count, nestedPayloads[next].offset <= member.object.offset {
                skippedUpTo = max(skippedUpTo, containers[nestedPayloads[next].container].end)
                next += 1
            }
            if member.object.offset >= skippedUpTo { own.append(member) }
        }
        return own
    }

    /// Encodes payload `value` (`{"$keyedArchive": …}`, `{"$propertyList": …}`, `{"$typedstream":
    /// […]}`, with `"$format": "xml"` for an XML property list) as a document of its own
    /// (`payloadDocument`: the document its text is, taken from this one's index), so that its
    /// `$id`s and references are its own. Refusals inside it are located in this document.
    private func payloadBytes(_ value: Value) throws(CodecError) -> [UInt8] {
        guard payloadNesting < NestedPayload.maximumNesting else {
            throw invalid("nested payloads nest more than \(NestedPayload.maximumNesting) levels deep", at: value)
        }
        let start = Int(value.offset)
        let payload = payloadDocument(value, payloadNesting: payloadNesting + 1)
        do {
            return try payload.payloadDocumentBytes()
        } catch {
            let path = path(to: value)
            let inner = error.jsonPath.map { path + $0.dropFirst() } ?? path
            throw CodecError(
                error.kind, error.message, byteOffset: error.byteOffset.map { $0 + start }, jsonPath: inner, found: error.found, limit: error.limit,
                remedy: error.remedy)
        }
    }

    /// The bytes of a payload's document standing alone (its root the wrapper object).
    func payloadDocumentBytes() throws(CodecError) -> [UInt8] {
        let (body, format) = try payloadBody()
        return try encode(body, format: format, limit: maximumArchiveSize)
    }

    /// What a payload's document (its root the wrapper object) describes, and its format.
    private func payloadBody() throws(CodecError) -> (Body, PlistFormat) {
        var body: Body?
        var format: PlistFormat?
        let shape = "a nested payload is {\"$keyedArchive\": …}, {\"$propertyList\": …} or {\"$typedstream\": […]}, with \"$format\": \"xml\" for an XML property list"
        var members = children(of: root)
        while let (key, member) = nextMember(&members) {
            if stringEquals(key, NestedPayload.formatKey) {
                guard kind(member) == .string, stringValue(member) == "xml" || stringValue(member) == "binary" else {
                    throw invalid("$format is \"xml\" or \"binary\"", at: member)
                }
                format = stringValue(member) == "xml" ? .xml : .binary
                continue
            }
            let found: Body
            if let marked = DocumentFormats.marked(by: { stringEquals(key, $0) }) {
                found = Body(format: marked, root: marked.payloadRoot(wrapper: root, member: member))
            } else if stringEquals(key, MappingKeys.byteOrder) || stringEquals(key, MappingKeys.systemVersion) {
                continue  // a typedstream's, read by its encoder
            } else {
                throw invalid(shape, at: key)
            }
            guard body == nil else { throw invalid(shape, at: key) }
            body = found
        }
        guard let body else { throw invalid(shape, at: root) }
        if !body.format.isPropertyList, format != nil {
            throw invalid("\(body.format.kindName) has one byte form: no $format", at: root)
        }
        return (body, format ?? .binary)
    }
}
