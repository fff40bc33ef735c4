import Foundation

/// Property lists built by hand for tests and written as binary (`bplist00`) or XML bytes: keyed
/// archives of any shape, valid or not (dangling UIDs, repeated keys, cycles, a million objects
/// in a chain), which the codec's own encoder would refuse or never make. It uses none of the
/// codec, so that what a test reads is not made by the code under test.
///
/// Objects are written in the order they are added, each named by the index `add` returns;
/// containers name their children by those indices, so a container may be reserved before its
/// children are added and set after (`reserve`, `set`). The scalar methods (`string`,
/// `integer`, …) intern: one object per distinct value, as Apple's writer gives them, and as
/// the codec's `PlistTree` does (strings and data by their bytes, numbers by their bits).
/// `add` never interns.
public struct TestPlistBuilder {
    public enum Object {
        case string(String)
        case integer(Int64)
        case real(Double)
        case bool(Bool)
        case data([UInt8])
        case uid(Int)
        /// References to other objects.
        case array([Int])
        /// References to other objects: the keys are strings.
        case dict([(key: Int, value: Int)])
    }

    /// The widths of references, offsets and numbers in the binary form.
    public enum Layout {
        /// The smallest that fit, as Apple's writer (and the codec's) chooses them: references
        /// and offsets of 1, 2, 4 or 8 bytes, and integers, UIDs and counts in the fewest bytes
        /// a reader accepts (negative integers in 8).
        case compact
        /// References, offsets and UIDs of 4 bytes, integers (and counts of 15 or more) of 8,
        /// whatever the values: a reference costs 4 bytes however few the objects are.
        case wide
    }

    private enum Scalar: Hashable {
        case string([UInt8])
        case data([UInt8])
        case integer(Int64)
        case real(UInt64)
        case bool(Bool)
        case uid(Int)
    }

    public private(set) var objects: [Object] = []
    private var interned: [Scalar: Int] = [:]

    public init() {}

    /// Adds `object` (never shared with an equal one) and returns its reference.
    public mutating func add(_ object: Object) -> Int {
        objects.append(object)
        return objects.count - 1
    }

    /// A reference to fill in later with `set`.
    public mutating func reserve() -> Int { add(.integer(0)) }

    public mutating func set(_ reference: Int, _ object: Object) { objects[reference] = object }

    public mutating func string(_ text: String) -> Int { intern(.string(Array(text.utf8)), .string(text)) }

    public mutating func integer(_ value: Int64) -> Int { intern(.integer(value), .integer(value)) }

    public mutating func real(_ value: Double) -> Int { intern(.real(value.bitPattern), .real(value)) }

    public mutating func bool(_ value: Bool) -> Int { intern(.bool(value), .bool(value)) }

    public mutating func data(_ bytes: [UInt8]) -> Int { intern(.data(bytes), .data(bytes)) }

    public mutating func uid(_ value: Int) -> Int { intern(.uid(value), .uid(value)) }

    private mutating func intern(_ key: Scalar, _ object: Object) -> Int {
        if let existing = interned[key] { return existing }
        let reference = add(object)
        interned[key] = reference
        return reference
    }

    /// A keyed archive's root dictionary around `objects` (the `$objects` entries, `$null`
    /// first), its `$top` holding `root` → UID 1; the binary property list of it.
    public mutating func keyedArchive(objects: [Int]) -> [UInt8] {
        let root = add(
            .dict([
                (key: string("$version"), value: integer(100_000)), (key: string("$archiver"), value: string("NSKeyedArchiver")),
                (key: string("$top"), value: add(.dict([(key: string("root"), value: uid(1))]))),
                (key: string("$objects"), value: add(.array(objects)))
            ]))
        return binary(top: root)
    }

    // MARK: Binary

    /// The binary property list with `top` as its root object.
    public func binary(top: Int, layout: Layout = .compact) -> [UInt8] {
        let wide = layout == .wide
        var out = BinaryOutput(bytes: Array("bplist00".utf8), wide: wide)
        let referenceSize = wide ? 4 : BinaryOutput.width(UInt64(max(objects.count - 1, 0)))
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(out.bytes.count)
            switch object {
            case .bool(let value): out.bytes.append(value ? 0x09 : 0x08)
            case .integer(let value): out.integer(value)
            case .real(let value):
                out.bytes.append(0x23)
                out.bigEndian(value.bitPattern, size: 8)
            case .uid(let value):
                let size = wide ? 4 : BinaryOutput.width(UInt64(value))
                out.bytes.append(0x80 | UInt8(size - 1))
                out.bigEndian(UInt64(value), size: size)
            case .data(let bytes):
                out.marker(0x40, count: bytes.count)
                out.bytes += bytes
            case .string(let text) where text.utf8.allSatisfy({ $0 < 0x80 }):
                out.marker(0x50, count: text.utf8.count)
                out.bytes += Array(text.utf8)
            case .string(let text):
                out.marker(0x60, count: text.utf16.count)
                for unit in text.utf16 { out.bigEndian(UInt64(unit), size: 2) }
            case .array(let references):
                out.marker(0xA0, count: references.count)
                for reference in references { out.bigEndian(UInt64(reference), size: referenceSize) }
            case .dict(let pairs):
                out.marker(0xD0, count: pairs.count)
                for pair in pairs { out.bigEndian(UInt64(pair.key), size: referenceSize) }
                for pair in pairs { out.bigEndian(UInt64(pair.value), size: referenceSize) }
            }
        }
        let table = out.bytes.count
        let offsetSize = wide ? 4 : BinaryOutput.width(UInt64(max(table, 1)))
        for offset in offsets { out.bigEndian(UInt64(offset), size: offsetSize) }
        out.bytes += [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)]
        out.bigEndian(UInt64(objects.count), size: 8)
        out.bigEndian(UInt64(top), size: 8)
        out.bigEndian(UInt64(table), size: 8)
        return out.bytes
    }

    private struct BinaryOutput {
        var bytes: [UInt8]
        let wide: Bool

        /// The fewest of 1, 2, 4 or 8 bytes that hold `value`.
        static func width(_ value: UInt64) -> Int {
            value <= 0xFF ? 1 : value <= 0xFFFF ? 2 : value <= 0xFFFF_FFFF ? 4 : 8
        }

        /// The low `size` bytes of `value`, most significant first.
        mutating func bigEndian(_ value: UInt64, size: Int) {
            var shift = 8 * (size - 1)
            while shift >= 0 {
                bytes.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
                shift -= 8
            }
        }

        /// Readers take 1, 2 and 4-byte integers as unsigned, 8-byte ones as signed.
        mutating func integer(_ value: Int64) {
            let size = wide || value < 0 ? 8 : Self.width(UInt64(value))
            bytes.append(0x10 | UInt8(size.trailingZeroBitCount))
            bigEndian(UInt64(bitPattern: value), size: size)
        }

        /// An object's marker: its kind in the high nibble, its count in the low one, or 0xF
        /// and then the count as an integer object.
        mutating func marker(_ kind: UInt8, count: Int) {
            guard count >= 15 else { return bytes.append(kind | UInt8(count)) }
            bytes.append(kind | 0x0F)
            integer(Int64(count))
        }
    }

    // MARK: XML

    /// The XML property list with `top` as its root object, laid out as Apple's writer (and the
    /// codec's) lays it out: a tab per level, UIDs as `CF$UID` dictionaries. Written by
    /// recursion, for the few levels an archive's objects nest (they refer to each other by
    /// UID).
    public func xml(top: Int) -> [UInt8] {
        var out = """
            <?xml version="1.0" encoding="UTF-8"?>
            <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
            <plist version="1.0">

            """
        func line(_ depth: Int, _ text: String) {
            out += String(repeating: "\t", count: min(depth, 64)) + text + "\n"
        }
        func escaped(_ reference: Int) -> String {
            guard case .string(let text) = objects[reference] else { preconditionFailure("a dictionary key is a string") }
            return text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
                .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\r", with: "&#13;")
        }
        func write(_ reference: Int, depth: Int, key: Int?) {
            if let key { line(depth, "<key>\(escaped(key))</key>") }
            switch objects[reference] {
            case .bool(let value): line(depth, value ? "<true/>" : "<false/>")
            case .integer(let value): line(depth, "<integer>\(value)</integer>")
            case .real(let value):
                let text = value.isNaN ? "nan" : value.isInfinite ? (value < 0 ? "-infinity" : "+infinity") : value.description
                line(depth, "<real>\(text)</real>")
            case .data(let bytes): line(depth, "<data>\(Data(bytes).base64EncodedString())</data>")
            case .string: line(depth, "<string>\(escaped(reference))</string>")
            case .uid(let value):
                line(depth, "<dict>")
                line(depth + 1, "<key>CF$UID</key>")
                line(depth + 1, "<integer>\(value)</integer>")
                line(depth, "</dict>")
            case .array(let references) where references.isEmpty: line(depth, "<array/>")
            case .array(let references):
                line(depth, "<array>")
                for child in references { write(child, depth: depth + 1, key: nil) }
                line(depth, "</array>")
            case .dict(let pairs) where pairs.isEmpty: line(depth, "<dict/>")
            case .dict(let pairs):
                line(depth, "<dict>")
                for pair in pairs { write(pair.value, depth: depth + 1, key: pair.key) }
                line(depth, "</dict>")
            }
        }
        write(top, depth: 0, key: nil)
        out += "</plist>\n"
        return Array(out.utf8)
    }
}
