/// The encoder's side of the readable forms of bytes (`BytesForm`, docs/mapping.md "Readable
/// bytes"): a form standing in a `$bytes` or `$data` wrapper is turned back into its bytes,
/// whatever key or class it stands under (the form alone says what the bytes are). A form
/// that is malformed is refused at the value that is wrong, with its JSON path.
extension JSONDocument {
    /// The bytes of the readable form `object`, or nil when it holds none of the forms'
    /// content keys (`$components`, `$ranges`, `$indexes`, `$runs`).
    func bytesFormBytes(_ object: Value) throws(CodecError) -> [UInt8]? {
        var content: (form: BytesForm, value: Value)?
        var hex: (key: Value, value: Value)?
        var terminated: (key: Value, value: Value)?
        var space: (key: Value, value: Value)?
        // The first key that is none of the form's: all a refusal names, so no list of them
        // is made (every data value is asked, most with a key of another kind, `$data`).
        var firstOther: Value?
        // Asked of every data value (a nested payload's wrapper too): its members are walked,
        // not gathered into an array.
        var members = children(of: object)
        while let (key, value) = nextMember(&members) {
            let form: BytesForm
            if stringEquals(key, BytesForm.componentsKey) {
                form = .components
            } else if stringEquals(key, BytesForm.rangesKey) {
                form = .ranges
            } else if stringEquals(key, BytesForm.indexesKey) {
                form = .indexes
            } else if stringEquals(key, BytesForm.runsKey) {
                form = .runs
            } else {
                if stringEquals(key, BytesForm.hexKey) {
                    hex = (key, value)
                } else if stringEquals(key, BytesForm.terminatedKey) || stringEquals(key, MappingKeys.formerNulTerminated) {
                    terminated = (key, value)
                } else if stringEquals(key, BytesForm.spaceKey) {
                    space = (key, value)
                } else if firstOther == nil {
                    firstOther = key
                }
                continue
            }
            if content != nil { throw invalid("bytes have one readable form: $components, $ranges, $indexes or $runs", at: key) }
            content = (form, value)
        }
        guard let content else { return nil }
        let stray = content.form == .components ? firstOther : firstOther ?? hex?.key ?? terminated?.key ?? space?.key
        if let key = stray {
            let allowed =
                content.form == .components ? "$components takes $hex, $space and $nulTerminated beside it" : "\(content.form.contentKey) stands alone"
            throw invalid("\(allowed): not \(TextExcerpt.quote(stringValue(key)))", at: key)
        }
        // A colour's label is checked against the colour (`checkColorSpaceLabels`), not here.
        if let space, kind(space.value) != .string { throw invalid("$space takes text naming the components' colour space", at: space.value) }
        switch content.form {
        case .components, .rgbComponents:
            return try componentBytes(content.value, hex: hex?.value, terminated: terminated?.value)
        case .indexes:
            var bytes: [UInt8] = []
            Varint.encode(try formIntegers(content.value, of: content.form), into: &bytes)
            return bytes
        case .ranges, .runs:
            var bytes: [UInt8] = []
            Varint.encode(try formIntegers(content.value, of: content.form), into: &bytes)
            return bytes
        }
    }

    /// `$components` (with `$nul` and `$hex` beside it) as component text (`ComponentText`).
    private func componentBytes(_ value: Value, hex: Value?, terminated: Value?) throws(CodecError) -> [UInt8] {
        guard kind(value) == .array, count(value) > 0 else { throw invalid("$components takes an array of one or more numbers", at: value) }
        var components: [Double] = []
        components.reserveCapacity(count(value))
        for element in elements(of: value) {
            let component: Double
            switch kind(element) {
            case .number:
                switch number(element) {
                case .signed(let integer): component = Double(integer)
                case .unsigned(let integer): component = Double(integer)
                case .real(let real): component = real
                }
            case .object:
                guard let real = singleMember(element, named: MappingKeys.real) else { throw invalid("a colour component is a number", at: element) }
                component = try wrappedReal(real.value)
            default:
                throw invalid("a colour component is a number", at: element)
            }
            guard component.isFinite else { throw invalid("a colour component is a finite number", at: element) }
            components.append(component)
        }
        var text = ComponentText(components: components, terminated: true)
        if let terminated {
            guard kind(terminated) == .bool else { throw invalid("$nul takes true or false", at: terminated) }
            text.terminated = bool(terminated)
        }
        if let hex {
            guard kind(hex) == .string else { throw invalid("$hex takes text like \"#BD934C\"", at: hex) }
            let given = stringValue(hex)
            guard ColorHex.matches(given, components) else {
                let expected = ColorHex.text(components).map { "their hex is \($0)" } ?? "they have no hex (three or four components in 0 … 1 do)"
                throw invalid("$hex \(TextExcerpt.quote(given)) does not match $components: \(expected)", at: hex)
            }
        }
        return text.bytes
    }

    /// The integers of `$indexes` (an array of them) or of `$ranges` and `$runs` (an array of
    /// two-integer arrays), in order; each a JSON integer or `{"$integer": …}` in 0 … 2^64 − 1.
    private func formIntegers(_ value: Value, of form: BytesForm) throws(CodecError) -> [UInt64] {
        let pairs = form != .indexes
        let shape = pairs ? "an array of [number, number] pairs" : "an array of numbers"
        guard kind(value) == .array else { throw invalid("\(form.contentKey) takes \(shape)", at: value) }
        var values: [UInt64] = []
        for element in elements(of: value) {
            guard pairs else {
                values.append(try formInteger(element))
                continue
            }
            guard kind(element) == .array, count(element) == 2 else { throw invalid("expected a [number, number] pair", at: element) }
            for member in elements(of: element) { values.append(try formInteger(member)) }
        }
        return values
    }

    private func formInteger(_ value: Value) throws(CodecError) -> UInt64 {
        let integer: PlistInteger
        switch kind(value) {
        case .number:
            switch number(value) {
            case .signed(let signed): integer = PlistInteger(signed: signed)
            case .unsigned(let unsigned): integer = PlistInteger(unsigned: unsigned)
            case .real: throw invalid("expected a whole number, not a real", at: value)
            }
        case .object:
            guard let exact = singleMember(value, named: MappingKeys.integer) else { throw invalid("expected a whole number", at: value) }
            integer = try exactInteger(exact.value)
        default:
            throw invalid("expected a whole number", at: value)
        }
        guard integer.isUnsigned || Int64(bitPattern: integer.bits) >= 0 else { throw invalid("expected a number of 0 or more", at: value) }
        return integer.bits
    }
}
