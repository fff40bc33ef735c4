/// Building by hand: each call places one value, checked against the type its slot expects.
/// Integers and reals take an optional `form` (`NumberForm`): left `.canonical`, the writer
/// spells the value as Apple's writer would; given, it must hold the value, and is written as
/// given (a stream read back records its spellings the same way).
extension TypedStreamBuilder {
    /// Begins a top-level group, or a group of the innermost object, of type string `encoding`.
    mutating func beginGroup(_ encoding: String) throws(CodecError) {
        var encoding = encoding
        let string = encoding.withUTF8 { text in Result { () throws(CodecError) in try intern(text) } }
        try beginGroup(string: try string.get())
    }

    /// `beginGroup` for a type string of any bytes.
    mutating func beginGroup(encoding: [UInt8]) throws(CodecError) {
        try beginGroup(string: try intern(encoding))
    }

    /// Ends the innermost group, or struct, array or pointer; all its values must be placed.
    mutating func end() throws(CodecError) { try close() }

    /// Defines a class; `superclass` must be defined already. Classes are written where an
    /// object or `#` value first uses them.
    mutating func defineClass(_ name: String, version: Int64 = 0, superclass: Int? = nil) throws(CodecError) -> Int {
        try defineClass(name: Array(name.utf8), version: version, superclass: superclass)
    }

    /// `defineClass` for a name of any bytes.
    mutating func defineClass(name: [UInt8], version: Int64 = 0, superclass: Int? = nil) throws(CodecError) -> Int {
        if let superclass {
            guard stream.classes.indices.contains(superclass) else { throw CodecError(.invalidDocument, "superclass \(superclass) is not a defined class") }
        }
        let index = appendClass(name: try intern(name), version: version)
        setSuperclass(of: index, to: superclass.map(UInt32.init))
        return Int(index)
    }

    /// A new object of class `classIndex` at an `@` slot; its groups follow, then `endObject`.
    mutating func beginObject(class classIndex: Int) throws(CodecError) -> Int {
        guard stream.classes.indices.contains(classIndex) else { throw CodecError(.invalidDocument, "class \(classIndex) is not defined") }
        return Int(try beginObject(classIndex: UInt32(classIndex)))
    }

    /// An `@` value: nil, or an object made before (a back-reference; an object still open is
    /// a cycle).
    mutating func object(_ index: Int?) throws(CodecError) {
        if let index { guard stream.objects.indices.contains(index) else { throw CodecError(.invalidDocument, "object \(index) is not made yet") } }
        try placeReference(TypeCode.object, index)
    }

    /// A `#` value: nil or a defined class.
    mutating func classReference(_ index: Int?) throws(CodecError) {
        if let index { guard stream.classes.indices.contains(index) else { throw CodecError(.invalidDocument, "class \(index) is not defined") } }
        try placeReference(TypeCode.classObject, index)
    }

    /// A `*` value holding a new C string of `bytes` (nil: a nil string); returns its index.
    @discardableResult
    mutating func cString(_ bytes: [UInt8]?) throws(CodecError) -> Int? {
        try expect(TypeCode.cString)
        guard let bytes else {
            try placeReference(TypeCode.cString, nil)
            return nil
        }
        let index = appendCString(try intern(bytes))
        try placeReference(TypeCode.cString, Int(index))
        return Int(index)
    }

    /// A `*` value holding a new C string of shared string `string` (made by `intern`);
    /// returns its index.
    mutating func cString(interned string: UInt32) throws(CodecError) -> Int {
        try expect(TypeCode.cString)
        let index = appendCString(string)
        try placeReference(TypeCode.cString, Int(index))
        return Int(index)
    }

    /// A `*` value referring back to C string `index`.
    mutating func cString(reference index: Int) throws(CodecError) {
        guard stream.cStrings.indices.contains(index) else { throw CodecError(.invalidDocument, "C string \(index) is not made yet") }
        try placeReference(TypeCode.cString, index)
    }

    /// A `%` value.
    mutating func atom(_ bytes: [UInt8]?) throws(CodecError) {
        try expect(TypeCode.atom)
        try placeReference(TypeCode.atom, try bytes.map { (bytes) throws(CodecError) in Int(try intern(bytes)) })
    }

    /// A `:` value.
    mutating func selector(_ bytes: [UInt8]?) throws(CodecError) {
        try expect(TypeCode.selector)
        try placeReference(TypeCode.selector, try bytes.map { (bytes) throws(CodecError) in Int(try intern(bytes)) })
    }

    /// A `+` value: counted bytes, or nil.
    mutating func byteString(_ bytes: [UInt8]?) throws(CodecError) {
        let type = try expect(TypeCode.byteString)
        guard let bytes else { return place(TypedStream.Value(type: type, isNil: true)) }
        try bytes.withUnsafeBufferPointer { (bytes) throws(CodecError) in place(TypedStream.Value(type: type, word: try appendSpelledString(bytes))) }
    }

    /// A `+` value of `bytes` held elsewhere (a JSON document's text), copied into the storage.
    mutating func byteString(text bytes: UnsafeBufferPointer<UInt8>) throws(CodecError) {
        let type = try expect(TypeCode.byteString)
        place(TypedStream.Value(type: type, word: try appendSpelledString(bytes)))
    }

    /// A `[Nc]` or `[NC]` value: exactly N bytes.
    mutating func byteArray(_ bytes: [UInt8]) throws(CodecError) {
        let type = try expect(TypeCode.arrayOpen)
        let node = stream.types[type]
        guard stream.types.isByteArray(type) else { throw Self.mismatch(node.code, "bytes") }
        guard bytes.count == node.count else { throw CodecError(.invalidDocument, "\(bytes.count) bytes for an array of \(node.count)") }
        place(TypedStream.Value(type: type, word: try appendStorage(bytes).start))
    }

    /// A `!` value (no bytes).
    mutating func ignored() throws(CodecError) {
        place(TypedStream.Value(type: try expect(TypeCode.ignored)))
    }

    /// Opens the struct, array (of other than bytes) or pointer the slot expects; its
    /// children follow, then `end`.
    mutating func beginComposite() throws(CodecError) {
        guard let type = expectedType else { throw CodecError(.invalidDocument, "no value goes here") }
        let node = stream.types[type]
        guard [TypeCode.structOpen, TypeCode.arrayOpen, TypeCode.pointer].contains(node.code), !stream.types.isByteArray(type) else { throw Self.mismatch(node.code, "a struct, array or pointer") }
        try openComposite()
    }

    /// A signed integer for a `c s i l q` slot, within the type's width.
    mutating func integer(_ value: Int64, form: NumberForm = .canonical) throws(CodecError) {
        guard let type = expectedType, TypeCode.isSignedInteger(stream.types[type].code) else { throw Self.mismatch(expectedCode, "a signed integer") }
        try placeInteger(value, type: type, form: form)
    }

    /// An unsigned integer for a `C S I L Q B` slot, within the type's width; stored as the
    /// signed value of the same bits, as Apple's writer stores it.
    mutating func unsigned(_ value: UInt64, form: NumberForm = .canonical) throws(CodecError) {
        guard let type = expectedType, TypeCode.isUnsignedInteger(stream.types[type].code) else { throw Self.mismatch(expectedCode, "an unsigned integer") }
        let code = stream.types[type].code
        let width = TypeCode.bitWidth(code)
        guard width == 64 || value >> UInt64(width) == 0 else { throw CodecError(.invalidDocument, "\(value) does not fit a \(width)-bit '\(TypeTable.character(code))'") }
        // The signed value of the same bits at the type's width (a raw byte stays 0...255).
        let shift = UInt64(64 - width)
        let signed = TypeCode.isRawByte(code) ? Int64(value) : Int64(bitPattern: value << shift) >> Int64(shift)
        try placeInteger(signed, type: type, form: form)
    }

    /// A float for an `f` slot.
    mutating func float(_ value: Float, form: NumberForm = .canonical) throws(CodecError) {
        try placeReal(bits: UInt64(value.bitPattern), real: Double(value), code: TypeCode.float, form: form)
    }

    /// A double for a `d` slot.
    mutating func double(_ value: Double, form: NumberForm = .canonical) throws(CodecError) {
        try placeReal(bits: value.bitPattern, real: value, code: TypeCode.double, form: form)
    }

    // MARK: Checks

    /// The type of the next slot, which must be of type code `code`. Inlined: called out of
    /// line from a mutating context, it copied the whole builder to call on.
    @discardableResult
    @inline(__always)
    private func expect(_ code: UInt8) throws(CodecError) -> UInt32 {
        guard let type = expectedType, stream.types[type].code == code else { throw Self.mismatch(expectedCode, "'\(TypeTable.character(code))'") }
        return type
    }

    /// Static, taking the code: a method of the builder called from a mutating one copied the
    /// whole builder to call on, even on the paths that never refuse.
    private static func mismatch(_ code: UInt8?, _ given: String) -> CodecError {
        guard let code else { return CodecError(.invalidDocument, "\(given) where no value goes") }
        return CodecError(.invalidDocument, "\(given) where a value of type '\(TypeTable.character(code))' goes")
    }

    private mutating func placeReference(_ code: UInt8, _ index: Int?) throws(CodecError) {
        let type = try expect(code)
        place(TypedStream.Value(type: type, isNil: index == nil, word: UInt32(index ?? 0)))
    }

    private mutating func placeInteger(_ value: Int64, type: UInt32, form: NumberForm) throws(CodecError) {
        let code = stream.types[type].code
        let width = TypeCode.bitWidth(code)
        if TypeCode.isRawByte(code) {
            guard form == .canonical else { throw CodecError(.invalidDocument, "a '\(TypeTable.character(code))' is one raw byte; it has no other form") }
            guard code == TypeCode.char ? Int8(exactly: value) != nil : UInt8(exactly: value) != nil else {
                throw CodecError(.invalidDocument, "\(value) does not fit a '\(TypeTable.character(code))'")
            }
        } else {
            guard width == 64 || (value >> Int64(width - 1) == 0 || value >> Int64(width - 1) == -1) else {
                throw CodecError(.invalidDocument, "\(value) does not fit a \(width)-bit '\(TypeTable.character(code))'")
            }
            guard form == .canonical || form.holds(value) else { throw CodecError(.invalidDocument, "\(value) cannot be spelled as \(form)") }
        }
        let canonical = NumberForm.canonical(value, short: width == 16)
        // A 64-bit integer is kept spelled in the storage, as a stream read keeps it.
        let word = width == 64 ? try appendSpelled(integer: value, form: form == .canonical ? canonical : form) : UInt32(truncatingIfNeeded: value)
        place(TypedStream.Value(type: type, form: form == canonical ? .canonical : form, word: word))
    }

    private mutating func placeReal(bits: UInt64, real: Double, code: UInt8, form: NumberForm) throws(CodecError) {
        let type = try expect(code)
        if form != .canonical && form != .real {
            // An integer spelling must give back this very value.
            guard real.rounded(.towardZero) == real, !(real == 0 && real.sign == .minus), let whole = Int64(exactly: real), form.holds(whole) else {
                throw CodecError(.invalidDocument, "\(real) cannot be spelled as the integer form \(form)")
            }
        }
        let canonical = NumberForm.canonical(real: real)
        // A double is kept spelled in the storage, as a stream read keeps it; a float's bits
        // fit the value's word.
        var word = UInt32(truncatingIfNeeded: bits)
        if code == TypeCode.double {
            let spelled = form == .canonical ? canonical : form
            word = spelled == .real ? try appendSpelled(doubleBits: bits) : try appendSpelled(integer: Int64(real), form: spelled)
        }
        place(TypedStream.Value(type: type, form: form == canonical ? .canonical : form, word: word))
    }
}
