/// NSNumber's readable form: the rule that ties a JSON number to the Objective-C type NSNumber
/// keeps in a typedstream (its `*` group), so that the type is never lost.
///
/// A bare JSON value is an NSNumber of the type the rule gives it: an integer is `q`, a real is
/// `d`, `true`/`false` are `c` 1/0 (how `numberWithBool:` archives). Any other type, or a value
/// the bare form cannot hold, is `{"$number": value, "$type": "i"}`; `$type` is left out when
/// it is the rule's type for the value.
enum ReadableNumber {
    /// The types an NSNumber archives as: the integers, `B`, `f`, `d`.
    static func isNumberType(_ code: UInt8) -> Bool {
        TypeCode.bitWidth(code) != 0 || code == TypeCode.float || code == TypeCode.double
    }

    /// The JSON spelling of NSNumber value `index` of `stream` (of type `type`).
    enum Spelling: Equatable {
        /// `true` or `false`: a `c` of 1 or 0.
        case bool(Bool)
        /// A number or `{"$real": …}`; `typeIsImplied` when the rule gives `type` for it.
        case number(typeIsImplied: Bool)
    }

    static func spelling(of index: Int, type: UInt8, in stream: TypedStream) -> Spelling {
        switch (type, stream.content(of: index)) {
        case (TypeCode.char, .signed(let value)) where value == 0 || value == 1: .bool(value == 1)
        case (TypeCode.longLong, .signed): .number(typeIsImplied: true)
        case (TypeCode.double, .double): .number(typeIsImplied: true)
        default: .number(typeIsImplied: false)
        }
    }

    /// The type the rule gives a JSON value of kind `kind` (a number `number`; for an object,
    /// `{"$integer": …}` when `wrapsInteger`, else `{"$real": …}`), nil when the value is not a
    /// number's.
    static func impliedType(kind: JSONDocument.Kind, number: JSONNumber?, wrapsInteger: Bool = false) -> UInt8? {
        switch (kind, number) {
        case (.bool, _): TypeCode.char
        case (.object, _) where wrapsInteger: TypeCode.longLong
        case (.number, .real?), (.object, _): TypeCode.double
        case (.number, _): TypeCode.longLong
        default: nil
        }
    }
}
