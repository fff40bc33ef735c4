/// One `TypedStreamBuilder` call that a readable form stands for, located at the JSON value it
/// comes from (a refusal names that value). `ReadableFormLowering` turns a readable form into a
/// flat list of them; `TypedStreamJSONEncoder` runs the list, and each `.value` goes back
/// through the encoder's own dispatch, so forms nest without recursion.
enum ReadableBuildStep {
    typealias Value = JSONDocument.Value

    /// A new object of the readable class's chain at the `@` slot; `id` is its `$id` and where
    /// it is written.
    case beginObject(ReadableClass, id: (number: Int64, at: Value)?, at: Value)
    case endObject(at: Value)
    /// A group of the type string; `end` closes it once its values are placed.
    case group(String, at: Value)
    case end(at: Value)
    /// Any JSON value, for the slot the builder expects (an `@` value in any form, a number).
    case value(Value)
    /// A signed integer for a `c s i l q` slot.
    case integer(Int64, at: Value)
    /// An unsigned integer for a `C S I L Q B` slot.
    case unsigned(UInt64, at: Value)
    /// A double for a `d` slot.
    case double(Double, at: Value)
    /// `true` or `false` as 1 or 0, for any integer slot.
    case truth(Bool, at: Value)
    /// A `+` value: the text of JSON string `text` from its byte `skip` on (1 drops the first
    /// `$` of a `$$…` key), read from the document where it stands when the step runs.
    case byteString(text: Value, skip: Int, at: Value)
    /// A `*` value's text (a reference to an earlier C string of the same text, as in the
    /// generic form).
    case cString([UInt8], at: Value)
    /// A `[Nc]` value's bytes.
    case byteArray([UInt8], at: Value)
    /// The entries of an array, set or dictionary, lowered one at a time when their turn comes
    /// (`ReadableFormLowering.steps(forEntry:of:)`): a form of a million entries never holds
    /// a million entries' steps at once.
    case entries(ReadableEntries)
}

/// The entries of a readable container form, each an `@` group (a dictionary's entry two), in
/// the order the stream holds them.
enum ReadableEntries {
    typealias Value = JSONDocument.Value

    /// An array's or set's elements.
    case elements([Value])
    /// `$dict`'s `[key, value]` pairs, each checked when it is lowered.
    case pairs([Value])
    /// A dictionary's data keys (each a new NSString; `$$…` is the key `$…`) and values.
    case stringKeyed([(key: Value, value: Value)])

    var count: Int {
        switch self {
        case .elements(let values), .pairs(let values): values.count
        case .stringKeyed(let entries): entries.count
        }
    }
}
