/// Bookmark data (`CFURLCreateBookmarkData`, `NSURL bookmarkData…`): what `.sfl2`/`.sfl3` lists,
/// Finder aliases, Safari's downloads and many preferences keep for a file. Read into an
/// `AccountValue` of what it points to (docs/mapping.md, "Data values").
///
/// The format, as public write-ups describe it (all integers little-endian but dates):
/// - a header: `book`, the total size, a version word, the header's size (48 as written);
/// - the data area after the header: its first word is the offset of the first table of
///   contents (offsets below are from the data area's start);
/// - a table of contents: its size, `FE FF FF FF`, its id, the next table's offset (0: none), an
///   entry count, then per entry a key (high bit set: the offset of a string item naming it), the
///   item's offset and a reserved word;
/// - an item: its payload's length, its type (high 24 bits the kind, low 8 the subtype), the
///   payload: strings UTF-8, numbers a `CFNumberType` subtype, dates big-endian doubles of seconds
///   since 2001, booleans in the subtype, arrays and dictionaries offsets of items, UUIDs 16
///   bytes, URLs text or a base and a relative item, null.
///
/// Contract: `account(of:)` never traps and never loops, whatever the bytes: every offset is
/// checked against the bytes, tables, their entries and items are read a bounded number of
/// times (`maximumTables`, `maximumEntries`, `maximumItems`), and containers nest at most `maximumContainers` deep (cycles included);
/// deeper or malformed items are shown by their type number with their bytes; items show at
/// most `byteBudget` payload bytes in all. Bytes that do not
/// hold a readable header and first table give nil: they stay bytes alone.
enum BookmarkData {
    /// Items read at most per bookmark (a real one holds about 40).
    static let maximumItems = 2_048
    /// Tables of contents read at most (real ones have one or two).
    static let maximumTables = 8
    /// Table entries read at most, over all tables (a real table holds about 40). A table's
    /// count is bounded by its bytes, but tables may overlap, and each entry read becomes a
    /// member (some tens of bytes of values per 12 bytes of entry, and past `maximumItems` a
    /// `null` each): the entries past this bound are not read, and the table says how many
    /// under `entriesNotShown`.
    static let maximumEntries = 2_048
    /// The member counting a table's entries past `maximumEntries` (no key's name has a space).
    static let entriesNotShown = "entries not shown"
    /// Arrays and dictionaries inside an item's value, at most (real ones nest one).
    static let maximumContainers = 2

    /// Payload bytes an account shows at most for a bookmark of `size` bytes: items past it
    /// (an item referenced many times over) are `null`, so no bookmark's account is much larger
    /// than the bookmark.
    static func byteBudget(_ size: Int) -> Int { 2 * size + 1_024 }

    /// Whether `bytes` begin as a bookmark does: the cheap check before reading one.
    @inline(__always)
    static func mightBe(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        bytes.count >= 52 && bytes[0] == 0x62 && bytes[1] == 0x6F && bytes[2] == 0x6F && bytes[3] == 0x6B
    }

    /// What the bookmark in `bytes` points to, or nil when they are not a bookmark.
    static func account(of bytes: UnsafeBufferPointer<UInt8>) -> AccountValue? {
        guard mightBe(bytes) else { return nil }
        var reader = Reader(bytes: bytes)
        return reader.read()
    }

    /// Names of the keys of a table of contents; the volume's (0x20xx) go in `"volume"`.
    static func name(ofKey key: UInt32) -> String? {
        switch key {
        case 0x1004: "path"
        case 0x1005: "fileIDs"
        case 0x1010: "fileProperties"
        case 0x1020: "fileName"
        case 0x1030: "fileID"
        case 0x1040: "created"
        case 0x2002: "path"
        case 0x2005: "url"
        case 0x2010: "name"
        case 0x2011: "uuid"
        case 0x2012: "size"
        case 0x2013: "created"
        case 0x2020: "properties"
        case 0x2030: "isRoot"
        case 0x2040: "bookmark"
        case 0x2050: "mountPoint"
        case 0xC001: "containingFolderIndex"
        case 0xC011: "userName"
        case 0xC012: "userID"
        case 0xD001: "wasFileReference"
        case 0xD010: "creationOptions"
        case 0xE003: "urlLengths"
        case 0xF017: "displayName"
        case 0xF080: "securityScope"
        case 0xF081: "securityScopeReadOnly"
        default: nil
        }
    }

    /// A key the names leave out: `"0x1054"`.
    static func hexName(_ key: UInt32) -> String {
        let digits = String(key, radix: 16)
        return "0x" + String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    /// The resource properties of a file (CFURL's, bit by bit from the lowest).
    static let fileFlagNames = [
        "isRegularFile", "isDirectory", "isSymbolicLink", "isVolume", "isPackage", "isSystemImmutable", "isUserImmutable", "isHidden",
        "hasHiddenExtension", "isApplication", "isCompressed", "canSetHiddenExtension", "isReadable", "isWriteable", "isExecutable", "isAliasFile",
        "isMountTrigger"
    ]
    /// The properties of a volume, bit by bit from the lowest ("" for a bit without a name).
    static let volumeFlagNames = [
        "isLocal", "isAutomount", "dontBrowse", "isReadOnly", "isQuarantined", "isEjectable", "isRemovable", "isInternal", "isExternal", "isDiskImage",
        "isFileVault", "isLocaliDiskMirror", "isiPod", "isiDisk", "isCD", "isDVD", "isDeviceFileSystem", "", "", "", "", "", "", "", "", "", "", "", "", "",
        "", "", "supportsPersistentIDs", "supportsSearchFS", "supportsExchange", "", "supportsSymbolicLinks", "supportsDenyModes", "supportsCopyFile",
        "supportsReadDirAttr", "supportsJournaling", "supportsRename", "supportsFastStatFS", "supportsCaseSensitiveNames", "supportsCasePreservedNames",
        "supportsFLock", "hasNoRootDirectoryTimes", "supportsExtendedSecurity", "supports2TBFileSize", "supportsHardLinks",
        "supportsMandatoryByteRangeLocks", "supportsPathFromID", "", "isJournaling", "supportsSparseFiles", "supportsZeroRuns", "supportsVolumeSizes",
        "supportsRemoteEvents", "supportsHiddenFiles", "supportsDecmpFSCompression", "has64BitObjectIDs"
    ]

    /// Property data (24 bytes: the flags set, the flags known, 8 more bytes) as the names of
    /// the flags set (`"bit 40"` for one without a name), or nil for any other shape.
    static func propertyNames(_ value: AccountValue, names: [String]) -> AccountValue? {
        guard case .object(let members) = value, members.count == 1, members[0].key == "data", case .base64(let bytes) = members[0].value, bytes.count == 24
        else { return nil }
        let set = (0..<8).reduce(UInt64(0)) { $0 | UInt64(bytes[$1]) << (8 * UInt64($1)) }
        return .array(
            (0..<64).filter { set >> UInt64($0) & 1 == 1 }.map { bit in .string(bit < names.count && !names[bit].isEmpty ? names[bit] : "bit \(bit)") })
    }

    private struct Reader {
        let bytes: UnsafeBufferPointer<UInt8>
        /// Where the data area, which offsets count from, starts.
        var dataStart = 0
        var itemsRead = 0
        /// Table entries read so far, over all tables (`maximumEntries`).
        var entriesRead = 0
        /// Payload bytes the account may still show: items may share one string many times, and
        /// the account stays about as large as the bytes (`byteBudget`).
        var bytesLeft = 0

        init(bytes: UnsafeBufferPointer<UInt8>) {
            self.bytes = bytes
            bytesLeft = byteBudget(bytes.count)
        }

        func word(at position: Int) -> UInt32? {
            guard position >= 0, position <= bytes.count - 4 else { return nil }
            return UInt32(bytes[position]) | UInt32(bytes[position + 1]) << 8 | UInt32(bytes[position + 2]) << 16 | UInt32(bytes[position + 3]) << 24
        }

        func littleEndian(at position: Int, count: Int) -> UInt64 {
            var value: UInt64 = 0
            for index in (0..<count).reversed() { value = value << 8 | UInt64(bytes[position + index]) }
            return value
        }

        mutating func read() -> AccountValue? {
            guard let size = word(at: 4), Int(size) == bytes.count, let header = word(at: 12), header >= 16, Int(header) <= bytes.count - 4 else { return nil }
            dataStart = Int(header)
            guard var tableOffset = word(at: dataStart) else { return nil }
            var members: [AccountMember] = []
            var seenTables: [UInt32] = []
            var first = true
            while tableOffset != 0, seenTables.count < maximumTables, !seenTables.contains(tableOffset) {
                seenTables.append(tableOffset)
                let base = dataStart + Int(tableOffset)
                guard base <= bytes.count - 20, word(at: base + 4) == 0xFFFF_FFFE, let id = word(at: base + 8), let next = word(at: base + 12),
                    let count = word(at: base + 16), Int(count) <= (bytes.count - base - 20) / 12
                else {
                    if first { return nil }
                    break
                }
                let table = readTable(at: base + 20, count: Int(count))
                if first {
                    members = table
                } else {
                    members.append(AccountMember("toc \(id)", AccountValue.distinct(table)))
                }
                first = false
                tableOffset = next
            }
            guard !first else { return nil }
            return AccountValue.distinct(members)
        }

        /// A table's entries as members: named keys, the volume's in one `"volume"` object where
        /// its first key stands, other keys by number, keys named by strings in `"named"`.
        mutating func readTable(at start: Int, count: Int) -> [AccountMember] {
            var members: [AccountMember] = []
            var volume: [AccountMember] = []
            var volumeIndex: Int?
            var named: [AccountMember] = []
            var namedIndex: Int?
            let shown = min(count, maximumEntries - entriesRead)
            entriesRead += shown
            for index in 0..<shown {
                let entry = start + 12 * index
                guard let key = word(at: entry), let offset = word(at: entry + 4) else { break }
                if key & 0x8000_0000 != 0 {
                    let name = item(at: key & 0x7FFF_FFFF, containers: maximumContainers)
                    guard case .string(let text) = name else { continue }
                    if namedIndex == nil {
                        namedIndex = members.count
                        members.append(AccountMember("named", .null))
                    }
                    named.append(AccountMember(text, keyedValue(key, at: offset)))
                    continue
                }
                let value = keyedValue(key, at: offset)
                let name = BookmarkData.name(ofKey: key) ?? hexName(key)
                if key & 0xFF00 == 0x2000 {
                    if volumeIndex == nil {
                        volumeIndex = members.count
                        members.append(AccountMember("volume", .null))
                    }
                    volume.append(AccountMember(name, value))
                } else {
                    members.append(AccountMember(name, value))
                }
            }
            if let volumeIndex { members[volumeIndex] = AccountMember("volume", AccountValue.distinct(volume)) }
            if let namedIndex { members[namedIndex] = AccountMember("named", AccountValue.distinct(named)) }
            if shown < count { members.append(AccountMember(entriesNotShown, .integer(Int64(count - shown)))) }
            return members
        }

        /// The value of a table entry: a security scope's token as text, property flags by name.
        mutating func keyedValue(_ key: UInt32, at offset: UInt32) -> AccountValue {
            let value = item(at: offset, containers: maximumContainers)
            if key == 0x1010 || key == 0x2020, let flags = BookmarkData.propertyNames(value, names: key == 0x1010 ? fileFlagNames : volumeFlagNames) {
                return flags
            }
            if key == 0xF080 || key == 0xF081, case .object(let members) = value, members.count == 1, case .base64(let token) = members[0].value {
                var text = token[...]
                while text.last == 0 { text = text.dropLast() }
                if !text.isEmpty, text.allSatisfy({ $0 >= 0x20 && $0 < 0x7F }) { return .string(String(decoding: text, as: UTF8.self)) }
            }
            return value
        }

        /// The item at `offset` (from the data area), with `containers` more arrays and
        /// dictionaries allowed inside it.
        mutating func item(at offset: UInt32, containers: Int) -> AccountValue {
            let start = dataStart + Int(offset)
            guard itemsRead < maximumItems, start <= bytes.count - 8, let length = word(at: start), let type = word(at: start + 4),
                Int(length) <= bytes.count - start - 8
            else { return .null }
            itemsRead += 1
            let payload = start + 8
            let count = Int(length)
            guard count <= bytesLeft else { return .null }
            bytesLeft -= count
            let subtype = type & 0xFF
            func unknown() -> AccountValue {
                .object([AccountMember("type", .unsigned(UInt64(type))), AccountMember("data", .base64(Array(bytes[payload..<payload + count])))])
            }
            switch type & 0xFFFF_FF00 {
            case 0x0100:
                guard let text = String(validating: bytes[payload..<payload + count], as: UTF8.self) else { return unknown() }
                return .string(text)
            case 0x0200:
                return .object([AccountMember("data", .base64(Array(bytes[payload..<payload + count])))])
            case 0x0300:
                return number(subtype: subtype, at: payload, count: count) ?? unknown()
            case 0x0400:
                guard count == 8 else { return unknown() }
                var bits: UInt64 = 0
                for index in 0..<8 { bits = bits << 8 | UInt64(bytes[payload + index]) }
                return .time(Double(bitPattern: bits))
            case 0x0500:
                guard count == 0, subtype <= 1 else { return unknown() }
                return .bool(subtype == 1)
            case 0x0600:
                guard containers > 0, count % 4 == 0 else { return unknown() }
                var elements: [AccountValue] = []
                for index in 0..<(count / 4) {
                    elements.append(item(at: word(at: payload + 4 * index)!, containers: containers - 1))
                }
                return .array(elements)
            case 0x0700:
                guard containers > 0, count % 8 == 0 else { return unknown() }
                var members: [AccountMember] = []
                var pairs: [AccountValue] = []
                var allStrings = true
                for index in 0..<(count / 8) {
                    let key = item(at: word(at: payload + 8 * index)!, containers: containers - 1)
                    let value = item(at: word(at: payload + 8 * index + 4)!, containers: containers - 1)
                    if case .string(let text) = key { members.append(AccountMember(text, value)) } else { allStrings = false }
                    pairs.append(.array([key, value]))
                }
                return allStrings ? AccountValue.distinct(members) : .array(pairs)
            case 0x0800:
                guard count == 16 else { return unknown() }
                return .string(String(decoding: ReadableWriter.uuidText(UnsafeBufferPointer(rebasing: bytes[payload..<payload + 16])), as: UTF8.self))
            case 0x0900:
                if subtype == 1, let text = String(validating: bytes[payload..<payload + count], as: UTF8.self) { return .string(text) }
                guard subtype == 2, count == 8, containers > 0 else { return unknown() }
                return .object([
                    AccountMember("base", item(at: word(at: payload)!, containers: containers - 1)),
                    AccountMember("relative", item(at: word(at: payload + 4)!, containers: containers - 1))
                ])
            case 0x0A00:
                return .null
            default:
                return unknown()
            }
        }

        /// A number of `CFNumberType` `subtype` whose payload has the size that type says.
        func number(subtype: UInt32, at payload: Int, count: Int) -> AccountValue? {
            let size: Int
            var isReal = false
            switch subtype {
            case 1, 7: size = 1
            case 2, 8: size = 2
            case 3, 9: size = 4
            case 4, 10, 11, 14, 15: size = 8
            case 5, 12: (size, isReal) = (4, true)
            case 6, 13, 16: (size, isReal) = (8, true)
            default: return nil
            }
            guard count == size else { return nil }
            let bits = littleEndian(at: payload, count: size)
            if isReal { return .real(size == 4 ? Double(Float(bitPattern: UInt32(bits))) : Double(bitPattern: bits)) }
            let shift = UInt64(64 - 8 * size)
            return .integer(Int64(bitPattern: bits << shift) >> Int64(shift))
        }
    }
}
