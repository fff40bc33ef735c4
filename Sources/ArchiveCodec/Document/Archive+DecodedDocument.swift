extension Archive {
    /// The readable (or raw) view's text, parsed: what an answer made from the decoded JSON
    /// reads (the plain view, the value at a path). The text is written compact following
    /// `plan`, held whole, then indexed (`JSONDocument`). `hold` is asked before the text grows
    /// (with the bytes it will then hold) and before it is parsed (with the text's bytes and
    /// `working(text)`: what the index and the answer's walk hold besides); when it refuses,
    /// this throws `notHeld`. Without `hold` nothing is asked (nor counted).
    public func decodedDocument(
        view: ArchiveView, plan: WritePlan, parallelism: Parallelism = .serial, hold: ((Int) -> Bool)?,
        working: (UnsafeBufferPointer<UInt8>) -> Int
    ) throws(CodecError) -> JSONDocument {
        let text = HeldText(hold: hold)
        try writeJSON(view: view, pretty: false, plan: plan, parallelism: parallelism) { text.append($0) }
        guard !text.refused else { throw Self.notHeld }
        if let hold {
            let working = text.bytes.withUnsafeBufferPointer { working($0) }
            // The document keeps the text's array, its spare capacity included.
            guard hold(text.bytes.capacity + working) else { throw Self.notHeld }
        }
        do throws(CodecError) {
            return try JSONDocument(parsing: text.take())
        } catch let error where error.kind == .limitExceeded {
            throw CodecError(
                .limitExceeded, "the answer is made from the decoded JSON, which is larger than 1 GiB here", found: error.found, limit: error.limit)
        }
    }

    /// `decodedDocument`'s refusal when `hold` grants no more memory.
    public static let notHeld = CodecError(.limitExceeded, "no memory granted to hold the decoded JSON this answer is made from")
}
