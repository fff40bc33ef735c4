@testable import ArchiveCodec

/// Renders a `TypedStream` as the event text `scripts/gen/typedstream_oracle.py` prints for
/// pytypedstream, one event a line, so the two readers can be compared line by line.
///
/// The walk is the writer's (`TypedStreamWalk`), the object table numbered as things first
/// occur (objects, classes and C strings together). Pointers, which pytypedstream
/// does not read, are rendered as "pointer" … "end pointer". A salvaged stream's events end
/// with "broken" at its break.
enum TypedStreamEventText {
    static func lines(_ stream: TypedStream) -> [String] {
        var renderer = Renderer(stream: stream)
        renderer.run()
        return renderer.lines
    }

    /// Bytes in double quotes: printable ASCII as is but `"` and `\`, every other byte `\xHH`.
    static func quoted<C: Collection>(_ bytes: C) -> String where C.Element == UInt8 {
        var text = "\""
        for byte in bytes {
            if (0x20...0x7E).contains(byte) && byte != 0x22 && byte != 0x5C {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "\\x" + hex(byte, digits: 2)
            }
        }
        return text + "\""
    }

    static func hex<T: BinaryInteger>(_ value: T, digits: Int) -> String {
        let text = String(value, radix: 16)
        return String(repeating: "0", count: max(0, digits - text.count)) + text
    }
}

private struct Renderer {
    let stream: TypedStream
    var walk: TypedStreamWalk
    var lines: [String] = []
    var objectNumbers: [Int: Int] = [:]
    var classNumbers: [Int: Int] = [:]
    var cStringNumbers: [Int: Int] = [:]
    var nextNumber = 0

    init(stream: TypedStream) {
        self.stream = stream
        walk = TypedStreamWalk(stream)
    }

    mutating func run() {
        let order = stream.byteOrder == .little ? "little" : "big"
        lines.append("header streamer=\(TypedStreamHeader.streamerVersion) order=\(order) system=\(stream.systemVersion)")
        // A salvaged stream's events end at its break, rendered "broken".
        let broken = stream.broken?.place
        while let step = walk.next() {
            switch step {
            case .value(let index) where broken == .value(UInt32(index)), .endOfObject(let index) where broken == .endOfObject(UInt32(index)):
                return lines.append("broken")
            case .group(let index, _):
                lines.append("group " + stream.values(ofGroup: index).map { TypedStreamEventText.quoted(stream.encoding(of: $0)) }.joined(separator: " "))
            case .value(let index): value(index)
            case .endOfGroup: lines.append("end group")
            case .endOfObject: lines.append("end object")
            case .endOfComposite(let index):
                switch stream.code(of: index) {
                case TypeCode.structOpen: lines.append("end struct")
                case TypeCode.pointer: lines.append("end pointer")
                default: lines.append("end array")
                }
            }
        }
        if broken == .endOfStream { lines.append("broken") }
    }

    mutating func value(_ index: Int) {
        switch stream.content(of: index) {
        case .signed(let value): lines.append("int \(value)")
        case .unsigned(let value):
            lines.append(stream.code(of: index) == TypeCode.bool ? "bool \(value)" : "int \(value)")
        case .float(let bits): lines.append("real " + TypedStreamEventText.hex(Double(Float(bitPattern: bits)).bitPattern, digits: 16))
        case .double(let bits): lines.append("real " + TypedStreamEventText.hex(bits, digits: 16))
        case .byteString(let span): lines.append(span.map { "bytes " + TypedStreamEventText.quoted(stream.bytes($0)) } ?? "nil")
        case .byteArray(let span):
            let element = stream.types[TypeTable.firstChild(of: stream.values[index].type)].code
            lines.append("bytearray " + TypedStreamEventText.quoted([element]) + " " + stream.bytes(span).map { TypedStreamEventText.hex($0, digits: 2) }.joined())
        case .cString(let string):
            guard let string else { return lines.append("nil") }
            if let number = cStringNumbers[string] { return lines.append("ref cstring \(number)") }
            cStringNumbers[string] = take()
            lines.append("cstring " + TypedStreamEventText.quoted(stream.sharedString(Int(stream.cStrings[string]))))
        case .atom(let string): lines.append("atom " + (string.map { TypedStreamEventText.quoted(stream.sharedString($0)) } ?? "nil"))
        case .selector(let string): lines.append("selector " + (string.map { TypedStreamEventText.quoted(stream.sharedString($0)) } ?? "nil"))
        case .classReference(let index):
            guard let index else { return lines.append("nil") }
            classChain(index)
        case .object(let index):
            guard let index else { return lines.append("nil") }
            if let number = objectNumbers[index] { return lines.append("ref object \(number)") }
            objectNumbers[index] = take()
            lines.append("object")
            let object = stream.objects[index]
            classChain(Int(object.classIndex))
            walk.enter(object: index)
        case .ignored: lines.append("nil")
        case .array(let children):
            let element = stream.encoding(of: children.lowerBound)
            lines.append("array \(TypedStreamEventText.quoted(element)) \(children.count)")
            walk.enter(childrenOf: index)
        case .structure(let fields):
            let name = stream.structName(of: index).map { TypedStreamEventText.quoted($0) } ?? "nil"
            let types = fields.map { TypedStreamEventText.quoted(stream.encoding(of: $0)) }
            lines.append((["struct", name] + types).joined(separator: " "))
            walk.enter(childrenOf: index)
        case .pointer:
            lines.append("pointer")
            walk.enter(childrenOf: index)
        }
    }

    mutating func classChain(_ first: Int) {
        var index = first
        while true {
            if let number = classNumbers[index] { return lines.append("ref class \(number)") }
            classNumbers[index] = take()
            let entry = stream.classes[index]
            lines.append("class \(TypedStreamEventText.quoted(stream.name(ofClass: index))) v\(entry.version)")
            guard let superclass = entry.superclass else { return lines.append("nil") }
            index = Int(superclass)
        }
    }

    mutating func take() -> Int {
        nextNumber += 1
        return nextNumber - 1
    }
}
