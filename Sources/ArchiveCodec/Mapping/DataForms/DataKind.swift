/// What a data value's bytes are, read from their signature only: the first bytes each format's
/// specification fixes, and nothing else (docs/mapping.md, "Data values"). Bytes that match no
/// signature have no kind: never a guess. (UTF-16's byte order marks are two bytes that any
/// binary value may begin with — a little-endian −2 is `FE FF` — so they name no kind.) For PNG, GIF, JPEG, WebP and BMP also the pixel size,
/// read from the header; for a colour profile what its header and description say.
///
/// The page names a value's kind by the same table (`Sources/ArchiveServer/Resources/page/
/// data-kind.mjs`); `Tests/Fixtures/data-kinds/cases.json` holds the cases both sides check.
///
/// Hostile bytes cost little: every test reads a fixed handful of bytes at fixed offsets, each
/// behind a length check; the one loop, a JPEG's walk over its segments to the frame header,
/// moves forward at least two bytes a step and stops `headerBytes` in, so it is linear and
/// bounded whatever the segments' lengths claim. Nothing is allocated from a size the bytes
/// declare.
struct DataKind: Equatable, Sendable {
    /// The kinds, each by the name the JSON writes (`"$kind": {"name": …}`), in the order the
    /// signatures are tried.
    enum Name: String, CaseIterable, Sendable {
        case png, jpeg, gif, webp, bmp, tiff, pdf, gzip, zip, bplist, typedstream, tzif
        case utf8
        case heic, heif, avif
        case icc
    }

    let name: Name
    /// The pixel size, when the header says it.
    let width: UInt32?
    let height: UInt32?
    /// A colour profile's account of itself (`ColorProfileSummary`), for `icc`.
    let profile: ColorProfileSummary?

    init(name: Name, width: UInt32? = nil, height: UInt32? = nil, profile: ColorProfileSummary? = nil) {
        self.name = name
        self.width = width
        self.height = height
        self.profile = profile
    }

    /// The most bytes read from the start of a value: a JPEG's frame header comes after its APPn
    /// segments (Exif, ICC profiles, each up to 64 KiB), and one further in than this is not
    /// looked for (the kind is still said, without a size). The page reads as many.
    static let headerBytes = 256 * 1024

    /// The kind of `bytes` with its pixel size, or nil when no signature matches.
    static func of(_ bytes: UnsafeBufferPointer<UInt8>) -> DataKind? {
        guard let name = name(of: bytes) else { return nil }
        let size: (width: UInt32, height: UInt32)?
        switch name {
        case .png: size = pngSize(bytes)
        case .gif: size = gifSize(bytes)
        case .jpeg: size = jpegSize(UnsafeBufferPointer(rebasing: bytes.prefix(headerBytes)))
        case .webp: size = webpSize(bytes)
        case .bmp: size = bmpSize(bytes)
        default: size = nil
        }
        return DataKind(name: name, width: size?.width, height: size?.height, profile: name == .icc ? ColorProfileSummary.of(bytes) : nil)
    }

    /// Whether `bytes` may have a kind: their first byte begins a signature, or the bytes at 4
    /// or 36 begin `ftyp` or `acsp`. Asked of every data value a readable view writes (most
    /// have no kind), so it is a bit test and two comparisons, inlined; `name(of:)` decides.
    @inline(__always)
    static func mightHaveOne(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        let count = bytes.count
        guard count >= 2 else { return false }
        let first = bytes[0]
        let bit = UInt64(1) << (first & 63)
        let word: UInt64
        switch first >> 6 {
        case 0: word = firstBytes0
        case 1: word = firstBytes1
        case 2: word = firstBytes2
        default: word = firstBytes3
        }
        if word & bit != 0 { return true }
        return (count >= 12 && bytes[4] == UInt8(ascii: "f")) || (count >= 40 && bytes[36] == UInt8(ascii: "a"))
    }

    /// The first bytes of the signatures `name(of:)` tries, as bits (byte `b` is bit `b % 64` of
    /// word `b / 64`): 04 1F 25 42 47 49 4D 50 52 54 62 89 EF FF.
    private static let firstBytes0: UInt64 = 1 << 0x04 | 1 << 0x1F | 1 << 0x25
    private static let firstBytes1: UInt64 =
        1 << (0x42 - 64) | 1 << (0x47 - 64) | 1 << (0x49 - 64) | 1 << (0x4D - 64) | 1 << (0x50 - 64) | 1 << (0x52 - 64)
        | 1 << (0x54 - 64) | 1 << (0x62 - 64)
    private static let firstBytes2: UInt64 = 1 << (0x89 - 128)
    private static let firstBytes3: UInt64 = 1 << (0xEF - 192) | 1 << (0xFF - 192)

    /// The kind of `bytes` by signature alone (no size read): a few bytes compared.
    static func name(of bytes: UnsafeBufferPointer<UInt8>) -> Name? {
        let count = bytes.count
        guard count >= 2 else { return nil }
        switch bytes[0] {
        case 0x89 where holds(bytes, [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]): return .png
        case 0xFF where holds(bytes, [0xFF, 0xD8, 0xFF]): return .jpeg
        case 0x47 where holds(bytes, "GIF87a") || holds(bytes, "GIF89a"): return .gif
        case 0x52 where holds(bytes, "RIFF") && holds(bytes, "WEBP", at: 8): return .webp
        // "BM" is two letters only: the header's file size must be the value's length too.
        case 0x42 where holds(bytes, "BM") && count >= 6 && UInt64(le32(bytes, 2)) == UInt64(count): return .bmp
        case 0x49 where holds(bytes, [0x49, 0x49, 0x2A, 0x00]), 0x4D where holds(bytes, [0x4D, 0x4D, 0x00, 0x2A]): return .tiff
        case 0x25 where holds(bytes, "%PDF-"): return .pdf
        // RFC 1952 defines one compression method (8, deflate): three bytes, not two.
        case 0x1F where holds(bytes, [0x1F, 0x8B, 0x08]): return .gzip
        case 0x50 where holds(bytes, [0x50, 0x4B, 0x03, 0x04]): return .zip
        case 0x62 where holds(bytes, "bplist00"): return .bplist
        case 0x04 where holds(bytes, [0x04, 0x0B]) && (holds(bytes, "streamtyped", at: 2) || holds(bytes, "typedstream", at: 2)): return .typedstream
        case 0x54 where holds(bytes, "TZif"): return .tzif
        case 0xEF where holds(bytes, [0xEF, 0xBB, 0xBF]): return .utf8
        default: break
        }
        // An ISO base media file (HEIF, AVIF): its first box is `ftyp`, whose major brand is
        // one the image formats' specifications define. (One byte first: most values are
        // neither this nor a profile, and leave after a comparison.)
        if count >= 12, bytes[4] == UInt8(ascii: "f"), holds(bytes, "ftyp", at: 4), let name = isoMediaKind(bytes) { return name }
        // A colour profile's signature is in its header, at offset 36.
        if count >= 40, bytes[36] == UInt8(ascii: "a"), holds(bytes, "acsp", at: 36) { return .icc }
        return nil
    }

    /// The account written beside the bytes (`"$kind"`): `{"name": "png", "width": 24,
    /// "height": 16}`, the size only when the header says it; a colour profile's version,
    /// class, space and description after its name (`ColorProfileSummary`). One level deep:
    /// every member is a scalar.
    var account: AccountValue {
        var members = [AccountMember("name", .string(name.rawValue))]
        if let width, let height {
            members.append(AccountMember("width", .unsigned(UInt64(width))))
            members.append(AccountMember("height", .unsigned(UInt64(height))))
        }
        if let profile { members += profile.members }
        return .object(members)
    }

    // MARK: ISO base media files

    /// HEIF's brands for HEVC-coded images and sequences (ISO/IEC 23008-12, annex B), its
    /// generic brands for any image or sequence (`mif1`, `msf1`), and AVIF's (AV1 Image File
    /// Format, section 9.1).
    private static func isoMediaKind(_ bytes: UnsafeBufferPointer<UInt8>) -> Name? {
        let brands: [(StaticString, Name)] = [
            ("heic", .heic), ("heix", .heic), ("heim", .heic), ("heis", .heic),
            ("hevc", .heic), ("hevx", .heic), ("hevm", .heic), ("hevs", .heic),
            ("mif1", .heif), ("msf1", .heif),
            ("avif", .avif), ("avis", .avif)
        ]
        for (brand, name) in brands where holds(bytes, brand, at: 8) { return name }
        return nil
    }

    // MARK: Pixel sizes

    /// A PNG's size: its first chunk is IHDR, width and height big-endian.
    private static func pngSize(_ bytes: UnsafeBufferPointer<UInt8>) -> (width: UInt32, height: UInt32)? {
        guard bytes.count >= 24, holds(bytes, "IHDR", at: 12) else { return nil }
        return (bytes.bigEndianUInt32(at: 16), bytes.bigEndianUInt32(at: 20))
    }

    /// A GIF's logical screen size, little-endian after the signature.
    private static func gifSize(_ bytes: UnsafeBufferPointer<UInt8>) -> (width: UInt32, height: UInt32)? {
        guard bytes.count >= 10 else { return nil }
        return (UInt32(le16(bytes, 6)), UInt32(le16(bytes, 8)))
    }

    /// A JPEG's size: its segments walked from the start up to the frame header (height, then
    /// width); nil when `head` ends first, a segment is malformed or the scan starts first. Each
    /// step moves at least one byte on, so the walk ends within `head.count` steps.
    private static func jpegSize(_ head: UnsafeBufferPointer<UInt8>) -> (width: UInt32, height: UInt32)? {
        var at = 2
        while at + 4 <= head.count {
            guard head[at] == 0xFF else { return nil }
            let marker = head[at + 1]
            if marker == 0xFF {
                at += 1  // a fill byte
            } else if marker == 0x01 || (0xD0...0xD7).contains(marker) {
                at += 2  // markers without a length
            } else if marker == 0xDA || marker == 0xD9 {
                return nil  // the scan (or the end) before any frame header
            } else if isStartOfFrame(marker) {
                guard at + 9 <= head.count else { return nil }
                return (UInt32(be16(head, at + 7)), UInt32(be16(head, at + 5)))
            } else {
                let length = Int(be16(head, at + 2))
                guard length >= 2 else { return nil }
                at += 2 + length
            }
        }
        return nil
    }

    /// Start-of-frame markers: C0–CF but C4 (Huffman tables), C8 (reserved) and CC (arithmetic
    /// coding conditioning).
    private static func isStartOfFrame(_ marker: UInt8) -> Bool {
        (0xC0...0xCF).contains(marker) && marker != 0xC4 && marker != 0xC8 && marker != 0xCC
    }

    /// A WebP's size from its first chunk (RFC 9649): `VP8 ` (the key frame's 14-bit sizes after
    /// its start code), `VP8L` (14-bit sizes less one, after its signature byte) or `VP8X` (the
    /// canvas's 24-bit sizes less one).
    private static func webpSize(_ bytes: UnsafeBufferPointer<UInt8>) -> (width: UInt32, height: UInt32)? {
        if holds(bytes, "VP8 ", at: 12) {
            guard bytes.count >= 30, holds(bytes, [0x9D, 0x01, 0x2A], at: 23) else { return nil }
            return (UInt32(le16(bytes, 26) & 0x3FFF), UInt32(le16(bytes, 28) & 0x3FFF))
        }
        if holds(bytes, "VP8L", at: 12) {
            guard bytes.count >= 25, bytes[20] == 0x2F else { return nil }
            let bits = le32(bytes, 21)
            return ((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
        }
        if holds(bytes, "VP8X", at: 12) {
            guard bytes.count >= 30 else { return nil }
            return (le24(bytes, 24) + 1, le24(bytes, 27) + 1)
        }
        return nil
    }

    /// A BMP's size from its information header: 16-bit sizes in the core header (12 bytes),
    /// 32-bit signed ones in every later one (a negative height: rows stored top-down).
    private static func bmpSize(_ bytes: UnsafeBufferPointer<UInt8>) -> (width: UInt32, height: UInt32)? {
        guard bytes.count >= 18 else { return nil }
        let headerSize = le32(bytes, 14)
        if headerSize == 12 {
            guard bytes.count >= 22 else { return nil }
            return (UInt32(le16(bytes, 18)), UInt32(le16(bytes, 20)))
        }
        guard headerSize >= 40, bytes.count >= 26 else { return nil }
        let width = Int32(bitPattern: le32(bytes, 18))
        let height = Int32(bitPattern: le32(bytes, 22))
        guard width > 0, height != 0, height != .min else { return nil }
        return (UInt32(width), UInt32(abs(height)))
    }

    // MARK: Bytes

    /// Whether `bytes` hold `signature` at `offset`.
    @inline(__always)
    private static func holds(_ bytes: UnsafeBufferPointer<UInt8>, _ signature: [UInt8], at offset: Int = 0) -> Bool {
        guard bytes.count >= offset + signature.count else { return false }
        for (index, byte) in signature.enumerated() where bytes[offset + index] != byte { return false }
        return true
    }

    /// Whether `bytes` hold the ASCII text `signature` at `offset`.
    @inline(__always)
    private static func holds(_ bytes: UnsafeBufferPointer<UInt8>, _ signature: StaticString, at offset: Int = 0) -> Bool {
        let length = signature.utf8CodeUnitCount
        guard bytes.count >= offset + length else { return false }
        let text = signature.utf8Start
        for index in 0..<length where bytes[offset + index] != text[index] { return false }
        return true
    }

    private static func be16(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt16 {
        UInt16(bytes[at]) << 8 | UInt16(bytes[at + 1])
    }

    private static func le16(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt16 {
        UInt16(bytes[at]) | UInt16(bytes[at + 1]) << 8
    }

    private static func le24(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16
    }

    private static func le32(_ bytes: UnsafeBufferPointer<UInt8>, _ at: Int) -> UInt32 {
        le24(bytes, at) | UInt32(bytes[at + 3]) << 24
    }
}
