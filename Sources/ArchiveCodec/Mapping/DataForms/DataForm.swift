/// How a data value is written (docs/mapping.md, "Data values"): its bytes as base64 with a
/// readable account beside them when they are a bookmark or an alias record (`$bookmark`,
/// `$alias`) or have a kind (`$kind`, `DataKind`), as text when they read as text (`DataText`),
/// else base64 alone. Decided per value from the bytes alone, a magic check first, so every
/// writer and every depth pass agree.
enum DataForm {
    /// The account the bytes carry, if any: a bookmark, an alias record, else their kind.
    static func account(of bytes: UnsafeBufferPointer<UInt8>) -> (kind: DataAccountKind, value: AccountValue)? {
        if BookmarkData.mightBe(bytes), let value = BookmarkData.account(of: bytes) { return (.bookmark, value) }
        if AliasRecord.mightBe(bytes), let value = AliasRecord.account(of: bytes) { return (.alias, value) }
        if let kind = readableKind(of: bytes) { return (.kind, kind.account) }
        return nil
    }

    /// Whether the bytes may carry an account (their magic alone: cheap, for every value).
    @inline(__always)
    static func mayCarryAccount(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        BookmarkData.mightBe(bytes) || AliasRecord.mightBe(bytes) || mayHaveReadableKind(bytes)
    }

    /// The kind the readable view writes beside the bytes: their `DataKind`, but none for bytes
    /// that begin as a document the nested view decodes (a binary property list, a typedstream:
    /// `NestedPayload.mightBeDocument`), whose data value `--nested` replaces with the document,
    /// as `DataText` leaves them base64 for the same reason. The page still names those by their
    /// signature.
    static func readableKind(of bytes: UnsafeBufferPointer<UInt8>) -> DataKind? {
        guard mayHaveReadableKind(bytes) else { return nil }
        return DataKind.of(bytes)
    }

    /// Whether the bytes have a kind the readable view writes (`readableKind`), by signature.
    @inline(__always)
    static func mayHaveReadableKind(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        guard DataKind.mightHaveOne(bytes) else { return false }
        switch DataKind.name(of: bytes) {
        case .none, .bplist?, .typedstream?: return false
        default: return true
        }
    }

    /// The levels the value's account opens below the data value's own object (0 without
    /// one, and for text, which `dataMembers` writes first: UTF-8 text after a byte order mark,
    /// or a PDF all of whose bytes are text, has a kind but is written as text): the one count
    /// of it every depth pass uses.
    static func accountHeight(_ bytes: UnsafeBufferPointer<UInt8>, _ numbers: NumberWrapping) -> Int {
        guard mayCarryAccount(bytes), !DataText.isText(bytes), let account = account(of: bytes) else { return 0 }
        return account.value.height(numbers)
    }
}

extension JSONOutput {
    /// The members of a data value's object (which the caller opens and closes, with `$id` or
    /// `$class` beside them): `"$text": "…"` (with `"$bom": "utf8"` after a byte order mark),
    /// or `"$data": "base64"` with `"$bookmark": {…}`, `"$alias": {…}` or `"$kind": {…}` when
    /// `accounts`; `inline` bytes take `$bytesText` and `$bytes`.
    mutating func dataMembers(_ bytes: UnsafeBufferPointer<UInt8>, inline: Bool, accounts: Bool, _ numbers: NumberWrapping) {
        if TextMark.leads(bytes), let (mark, text) = DataText.markedText(bytes) {
            key(inline ? MappingKeys.bytesText : MappingKeys.text)
            string(utf8: text)
            key(MappingKeys.bom)
            string(mark.name)
            return
        }
        if DataText.isText(bytes) {
            key(inline ? MappingKeys.bytesText : MappingKeys.text)
            string(utf8: bytes)
            return
        }
        key(inline ? MappingKeys.bytes : MappingKeys.data)
        base64String(bytes)
        guard accounts, let (kind, value) = DataForm.account(of: bytes) else { return }
        key(kind.key)
        account(value, numbers)
    }
}
