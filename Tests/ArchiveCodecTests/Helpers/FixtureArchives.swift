import ArchiveCodec
import TestSupport

extension Fixtures {
    /// Every fixture under `apple/` that parses as a keyed archive, with its bytes and the parsed
    /// archive, in name order; the frames in `not-archives/` and anything refused are left out.
    static func archives() -> [(name: String, bytes: [UInt8], archive: KeyedArchive)] {
        names().compactMap { name in
            guard let bytes = try? Fixtures.bytes(name), let archive = try? KeyedArchive(parsing: bytes) else { return nil }
            return (name, bytes, archive)
        }
    }
}
