/// NSFont's readable form: `{"$class": "NSFont", "$version": 30, "$name": "Helvetica",
/// "$size": 12.0, "$flags": [0, 1, 0, 0]}`.
///
/// NSFont archives its name with `encodePropertyList:`, NeXT's old binary property list, as a
/// byte array after its count (`{"i": n}`, `{"[nc]": …}`), then `{"f": size}` and four `{"c": …}`
/// flags (what they mean is not known). The name's property list is a string of type 6: the
/// type and the byte length as 32-bit little-endian integers, UTF-16 with a byte-order mark
/// (big-endian at version 21, little-endian at version 30, as the streams in hand have it), and
/// zero bytes to a multiple of 4. The form is written only when `nameList(_:version:)` of the
/// name gives the stream's bytes back exactly; any other list keeps the generic form.
enum ReadableFont {
    /// The number of `c` flag groups after the size.
    static let flagCount = 4

    /// The old binary property list NSFont at `version` archives for `name`.
    static func nameList(_ name: String, version: Int64) -> [UInt8] {
        let bigEndian = version == 21
        var text: [UInt8] = bigEndian ? [0xFE, 0xFF] : [0xFF, 0xFE]
        for unit in name.utf16 {
            let bytes = [UInt8(unit >> 8), UInt8(unit & 0xFF)]
            text += bigEndian ? bytes : bytes.reversed()
        }
        var list = littleEndian(6) + littleEndian(UInt32(text.count)) + text
        list += [UInt8](filledWith: 0, count: (4 - text.count % 4) % 4)
        return list
    }

    /// The name in `list` when `list` is exactly the property list NSFont at `version` archives
    /// for it, nil otherwise.
    static func name(in list: ArraySlice<UInt8>, version: Int64) -> String? {
        let bytes = Array(list)
        guard bytes.count >= 10, bytes.count % 2 == 0 else { return nil }
        let bigEndian = version == 21
        var units: [UInt16] = []
        var index = 10
        while index + 1 < bytes.count {
            let (first, second) = (UInt16(bytes[index]), UInt16(bytes[index + 1]))
            units.append(bigEndian ? first << 8 | second : second << 8 | first)
            index += 2
        }
        // Padding reads as trailing zero units; the rebuilt list says whether they were padding.
        while units.last == 0 { units.removeLast() }
        let name = String(decoding: units, as: UTF16.self)
        return nameList(name, version: version) == bytes ? name : nil
    }

    private static func littleEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value & 0xFF), UInt8(value >> 8 & 0xFF), UInt8(value >> 16 & 0xFF), UInt8(value >> 24)]
    }
}
