#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The counts that size a decode's working memory, read from an archive's bytes before it is
/// parsed, so that a caller with a memory budget can reserve what the decode will hold
/// before the decode allocates it.
///
/// A decode's tables grow with two counts, not with the input's size: one set per property
/// list object (validation's bitmaps and walk state) and one per `$objects` entry (the
/// analysis's forms, classes, lists, offsets and reference counts, the writers' placement).
/// Both can be far larger than the bytes suggest: a binary plist may point every `$objects`
/// entry at one shared object, so that each entry costs one reference of one byte.
///
/// The counts are upper bounds for every input that decodes; reading them costs O(1) for a
/// binary plist (its trailer and the `$objects` header) and one pass over the bytes for XML
/// (which is counted by elements). Malformed input gets counts that may be too small, but
/// such input is refused by validation, which allocates only by the trailer's object count
/// before it fails, and that count is always read.
package struct ArchiveCounts: Sendable, Equatable {
    /// Property list objects: the trailer's object count (binary) or the elements (XML).
    package let objects: Int
    /// `$objects` entries: the length of the top dictionary's `$objects` array (binary) or
    /// the elements (XML).
    package let entries: Int

    package init(objects: Int, entries: Int) {
        self.objects = objects
        self.entries = entries
    }

    /// The counts of `bytes`, a binary or XML property list; zero counts for anything else.
    package init(of bytes: [UInt8]) {
        if bytes.starts(with: "bplist".utf8) {
            self = bytes.withUnsafeBufferPointer { Self.binary($0) }
        } else if TypedStreamDocument.starts(bytes) {
            // Every value of a typedstream takes a byte or more: as many values as bytes at most.
            self.init(objects: bytes.count, entries: bytes.count)
        } else if KeyedArchive.looksLikeXML(bytes) {
            let elements = Self.xmlElements(bytes)
            self.init(objects: elements, entries: elements)
        } else {
            self.init(objects: 0, entries: 0)
        }
    }

    /// Start tags and empty-element tags: every `<` not followed by `/`. Each plist value of
    /// an XML plist is at least one element, so this bounds both counts. Processing
    /// instructions, comments and the doctype are counted too; the bound only grows.
    static func xmlElements(_ bytes: [UInt8]) -> Int {
        bytes.withUnsafeBufferPointer { buffer in
            guard let base = buffer.baseAddress else { return 0 }
            var count = 0
            var index = 0
            let end = buffer.count
            // memchr from one `<` to the next: a decode of XML pays one fast scan for its counts.
            while index < end, let found = memchr(base + index, Int32(UInt8(ascii: "<")), end - index) {
                let at = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if at + 1 == end || buffer[at + 1] != UInt8(ascii: "/") { count += 1 }
                index = at + 1
            }
            return count
        }
    }

    /// Reads the trailer, the top object and the `$objects` array's header with every read
    /// checked against the bytes: nothing here has been validated yet. The first `$objects`
    /// key counts, as in `ArchiveAnalysis`.
    private static func binary(_ bytes: UnsafeBufferPointer<UInt8>) -> ArchiveCounts {
        let length = bytes.count
        guard length >= 8 + 32 else { return ArchiveCounts(objects: 0, entries: 0) }
        let trailer = length - 32
        let offsetSize = Int(bytes[trailer + 6])
        let refSize = Int(bytes[trailer + 7])
        let objectCount64 = read(bytes, at: trailer + 8, size: 8) ?? 0
        let top64 = read(bytes, at: trailer + 16, size: 8) ?? 0
        let tableStart64 = read(bytes, at: trailer + 24, size: 8) ?? 0
        // Validation refuses a count above the length before allocating by it.
        let objects = Int(min(objectCount64, UInt64(length)))
        let none = ArchiveCounts(objects: objects, entries: 0)
        guard (1...8).contains(offsetSize), (1...8).contains(refSize), top64 < UInt64(objects),
            tableStart64 < UInt64(trailer)
        else { return none }
        let tableStart = Int(tableStart64)
        func offset(of ref: Int) -> Int? {
            guard ref >= 0, ref < objects, let position = read(bytes, at: tableStart + ref * offsetSize, size: offsetSize),
                position < UInt64(trailer), tableStart + (ref + 1) * offsetSize <= trailer
            else { return nil }
            return Int(position)
        }
        func childRef(_ start: Int, _ index: Int) -> Int? {
            read(bytes, at: start + index * refSize, size: refSize).map { Int(truncatingIfNeeded: $0) }
        }
        guard let topOffset = offset(of: Int(top64)), let root = header(bytes, at: topOffset, end: trailer),
            root.marker >> 4 == 0xD, root.count <= (trailer - root.start) / (2 * refSize)
        else { return none }
        for index in 0..<root.count {
            guard let keyRef = childRef(root.start, index), let keyOffset = offset(of: keyRef),
                isObjectsKey(bytes, at: keyOffset, end: trailer)
            else { continue }
            guard let valueRef = childRef(root.start, root.count + index), let valueOffset = offset(of: valueRef),
                let array = header(bytes, at: valueOffset, end: trailer), array.marker >> 4 == 0xA,
                array.count <= (trailer - array.start) / refSize
            else { return none }
            return ArchiveCounts(objects: objects, entries: array.count)
        }
        return none
    }

    /// A container's or string's marker, element count and where its payload starts; nil
    /// when any of it lies past `end`.
    private static func header(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int, end: Int) -> (marker: UInt8, count: Int, start: Int)? {
        guard position < end else { return nil }
        let marker = bytes[position]
        guard marker & 0x0F == 0x0F else { return (marker, Int(marker & 0x0F), position + 1) }
        guard position + 1 < end, bytes[position + 1] >> 4 == 0x1 else { return nil }
        let size = 1 << Int(bytes[position + 1] & 0x0F)
        guard size <= 8, position + 2 + size <= end, let count = read(bytes, at: position + 2, size: size),
            count <= UInt64(end)
        else { return nil }
        return (marker, Int(count), position + 2 + size)
    }

    /// Whether the object at `position` is the string `$objects`, ASCII or UTF-16.
    private static func isObjectsKey(_ bytes: UnsafeBufferPointer<UInt8>, at position: Int, end: Int) -> Bool {
        let key = String(describing: ArchiverKeys.objects).utf8
        guard let string = header(bytes, at: position, end: end), string.count == key.count else { return false }
        switch string.marker >> 4 {
        case 0x5:
            guard string.start + key.count <= end else { return false }
            return bytes[string.start..<(string.start + key.count)].elementsEqual(key)
        case 0x6:
            guard string.start + 2 * key.count <= end else { return false }
            return key.enumerated().allSatisfy { index, byte in
                bytes[string.start + 2 * index] == 0 && bytes[string.start + 2 * index + 1] == byte
            }
        default:
            return false
        }
    }

    /// A big-endian integer of `size` bytes at `offset`, or nil when it is not all there.
    private static func read(_ bytes: UnsafeBufferPointer<UInt8>, at offset: Int, size: Int) -> UInt64? {
        guard offset >= 0, size <= 8, offset <= bytes.count - size else { return nil }
        var value: UInt64 = 0
        for index in offset..<(offset + size) { value = value << 8 | UInt64(bytes[index]) }
        return value
    }
}
