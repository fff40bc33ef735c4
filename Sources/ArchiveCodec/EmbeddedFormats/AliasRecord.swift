/// A classic alias record (`AliasRecord`, the `alis` resource; versions 2 and 3): what older
/// `.sfl` lists, login items, Finder alias files and preferences keep for a file. Read into an
/// `AccountValue` of what it points to (docs/mapping.md, "Data values").
///
/// The format, as public write-ups describe it (big-endian throughout): a four-byte application
/// code, the record's size, its version; then a fixed part — version 2: the kind (file or
/// folder), the volume's name (a Pascal string in 28 bytes) and creation date (seconds since
/// 1904), the file system's and disk's types, the parent folder's id, the target's name (a
/// Pascal string in 64 bytes), id, creation date, type and creator codes, two level counts, the
/// volume's attributes and file system id, 10 reserved bytes; version 3: the kind, the volume's
/// creation date (1/65536 seconds since 1904), file system and disk types, the parent folder's
/// and target's ids, the target's creation date, the volume's attributes, 14 reserved bytes —
/// then tagged items (a tag, a length, the bytes padded to even) up to the tag −1: names as
/// UTF-16, POSIX paths, the folder ids of the path, finer dates.
///
/// Contract: `account(of:)` never traps and never loops: every read is checked against the
/// record, and at most `maximumTags` tagged items are read. Bytes that are not a record of
/// version 2 or 3 whose size field is their length and whose tagged items end where the tag −1
/// says give nil: they stay bytes alone.
enum AliasRecord {
    /// Tagged items read at most (real records hold about ten).
    static let maximumTags = 256
    /// Seconds from 1904-01-01 (the classic Mac epoch) to 2001-01-01.
    static let secondsFrom1904To2001: Double = 3_061_152_000

    /// Whether `bytes` begin as an alias record of version 2 or 3 whose size is their length: the
    /// cheap check before reading one.
    @inline(__always)
    static func mightBe(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count >= 58 && bytes.count <= 0xFFFF && bytes[6] == 0 && (bytes[7] == 2 || bytes[7] == 3)
            && Int(bytes[4]) << 8 | Int(bytes[5]) == bytes.count
    }

    /// What the alias record in `bytes` points to, or nil when they are not one.
    static func account(of bytes: UnsafeBufferPointer<UInt8>) -> AccountValue? {
        guard mightBe(bytes) else { return nil }
        let version = Int(bytes[7])
        func u16(_ at: Int) -> UInt64 { UInt64(bytes[at]) << 8 | UInt64(bytes[at + 1]) }
        func u32(_ at: Int) -> UInt64 { u16(at) << 16 | u16(at + 2) }
        func u64(_ at: Int) -> UInt64 { u32(at) << 32 | u32(at + 4) }
        func hiRes(_ at: Int) -> AccountValue { .time(Double(u64(at)) / 65_536 - secondsFrom1904To2001) }
        let kind = u16(8)
        guard kind <= 1 else { return nil }
        var target: [AccountMember] = [AccountMember("version", .integer(Int64(version))), AccountMember("kind", .string(kind == 0 ? "file" : "folder"))]
        var volume: [AccountMember] = []
        var tail: [AccountMember] = []
        let tagsStart: Int
        if version == 2 {
            guard bytes.count >= 152, bytes[10] <= 27, bytes[50] <= 63 else { return nil }
            target.append(AccountMember("name", text(bytes[51..<(51 + Int(bytes[50]))])))
            target.append(AccountMember("fileID", .unsigned(u32(114))))
            target.append(AccountMember("parentID", .unsigned(u32(46))))
            target.append(AccountMember("created", .time(Double(u32(118)) - secondsFrom1904To2001)))
            target.append(AccountMember("type", fourCharacterCode(bytes[122..<126])))
            target.append(AccountMember("creator", fourCharacterCode(bytes[126..<130])))
            volume.append(AccountMember("name", text(bytes[11..<(11 + Int(bytes[10]))])))
            volume.append(AccountMember("created", .time(Double(u32(38)) - secondsFrom1904To2001)))
            volume.append(AccountMember("fileSystem", fourCharacterCode(bytes[42..<44])))
            volume.append(AccountMember("diskType", .unsigned(u16(44))))
            volume.append(AccountMember("attributes", .unsigned(u32(134))))
            tagsStart = 150
        } else {
            target.append(AccountMember("fileID", .unsigned(u32(28))))
            target.append(AccountMember("parentID", .unsigned(u32(24))))
            target.append(AccountMember("created", hiRes(32)))
            volume.append(AccountMember("created", hiRes(10)))
            volume.append(AccountMember("fileSystem", fourCharacterCode(bytes[18..<22])))
            volume.append(AccountMember("diskType", .unsigned(u16(22))))
            volume.append(AccountMember("attributes", .unsigned(u32(40))))
            tagsStart = 58
        }
        var position = tagsStart
        var tags = 0
        while true {
            guard position <= bytes.count - 2, tags < maximumTags else { return nil }
            let tag = Int16(bitPattern: UInt16(u16(position)))
            if tag == -1 { break }
            guard position <= bytes.count - 4 else { return nil }
            let length = Int(u16(position + 2))
            let start = position + 4
            guard length <= bytes.count - start else { return nil }
            let value = bytes[start..<(start + length)]
            position = start + length + (length & 1)
            tags += 1
            switch tag {
            case 0: tail.append(AccountMember("folderName", text(value)))
            case 1 where length % 4 == 0:
                tail.append(AccountMember("folderIDs", .array(stride(from: start, to: start + length, by: 4).map { .unsigned(u32($0)) })))
            case 2: tail.append(AccountMember("carbonPath", text(value)))
            case 3: volume.append(AccountMember("appleShareZone", text(value)))
            case 4: volume.append(AccountMember("appleShareServer", text(value)))
            case 5: volume.append(AccountMember("appleShareUser", text(value)))
            case 6: volume.append(AccountMember("driverName", text(value)))
            case 14: target.insert(AccountMember("name", unicodeName(value)), at: min(2, target.count))
            case 15: volume.insert(AccountMember("name", unicodeName(value)), at: 0)
            case 16 where length == 8: volume.append(AccountMember("created", hiRes(start)))
            case 17 where length == 8: target.append(AccountMember("created", hiRes(start)))
            case 18: tail.append(AccountMember("path", text(value)))
            case 19: volume.append(AccountMember("path", text(value)))
            case 21 where length == 2: tail.append(AccountMember("homeFolderDepth", .integer(Int64(Int16(bitPattern: UInt16(u16(start)))))))
            default: tail.append(AccountMember("tag \(tag)", .base64(Array(value))))
            }
        }
        // A finer date or a Unicode name read later stands first: `distinct` keeps the first.
        return AccountValue.distinct(
            Self.finerFirst(target) + [AccountMember("volume", AccountValue.distinct(Self.finerFirst(volume)))] + tail)
    }

    /// Members with a later `created` (a finer date from a tag) moved before the earlier one.
    private static func finerFirst(_ members: [AccountMember]) -> [AccountMember] {
        let dates = members.filter { $0.key == "created" }
        guard dates.count > 1 else { return members }
        var result: [AccountMember] = []
        for member in members {
            if member.key == "created" {
                if result.contains(where: { $0.key == "created" }) { continue }
                result.append(dates.last!)
            } else {
                result.append(member)
            }
        }
        return result
    }

    /// Text in the record: ASCII or UTF-8 as it is, else its bytes.
    private static func text(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> AccountValue {
        if let text = String(validating: bytes, as: UTF8.self) { return .string(text) }
        return .base64(Array(bytes))
    }

    /// A type, creator or file system code: its characters when printable ASCII (zeros at the
    /// end left out: `H+` for `H+\0\0`), else the number.
    private static func fourCharacterCode(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> AccountValue {
        var text = bytes
        while text.last == 0 { text = text.dropLast() }
        if !text.isEmpty, text.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return .string(String(decoding: text, as: UTF8.self)) }
        return .unsigned(bytes.reduce(0) { $0 << 8 | UInt64($1) })
    }

    /// A tagged Unicode name: a count of UTF-16 units, then the big-endian units.
    private static func unicodeName(_ bytes: Slice<UnsafeBufferPointer<UInt8>>) -> AccountValue {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return .base64(Array(bytes)) }
        let units = Int(bytes[start]) << 8 | Int(bytes[start + 1])
        guard 2 + 2 * units <= bytes.count else { return .base64(Array(bytes)) }
        let text = (0..<units).map { UInt16(bytes[start + 2 + 2 * $0]) << 8 | UInt16(bytes[start + 3 + 2 * $0]) }
        return .string(String(decoding: text, as: UTF16.self))
    }
}
