import Foundation

/// The test fixtures under `Tests/Fixtures`, found from this file's path (they are read in place,
/// not bundled): `apple/` holds real archives made by Apple's NSKeyedArchiver, `apple/not-archives/`
/// protocol frames that carry archives but are not one, `corrupt/` archives broken on purpose,
/// `public/typedstream/` real NSArchiver streams from public projects (with
/// `public/typedstream-oracle/` holding what pytypedstream reads in each), `sniffing/` the table of
/// first bytes that `InputKind` and the page's `sniffFormat` are both checked against.
/// The one loader both test targets use.
public enum Fixtures {
    /// The repository's root (Tests/TestSupport/Fixtures.swift is two folders down).
    public static let repository = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
    public static let directory = repository.appendingPathComponent("Tests/Fixtures")

    /// The bytes of `name` under `apple/` (e.g. `goios_nsuuid.bin`, `not-archives/goios_dtx_nsnull.bin`).
    public static func bytes(_ name: String) throws -> [UInt8] { try read("apple/" + name) }

    /// The bytes of `name` under `corrupt/`.
    public static func corrupt(_ name: String) throws -> [UInt8] { try read("corrupt/" + name) }

    /// The bytes of `path` under `public/` (e.g. `plain-plist/fq_float-root-scalar.plist`).
    public static func publicFile(_ path: String) throws -> [UInt8] { try read("public/" + path) }

    /// The files of folder `folder` under `public/`, sorted by name: never empty.
    public static func publicNames(_ folder: String) -> [String] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("public/" + folder).path)) ?? []
        precondition(!all.isEmpty, "no fixtures in public/\(folder)")
        return all.sorted().map { folder + "/" + $0 }
    }

    /// The bytes of `name` under `public/typedstream/`.
    public static func typedStream(_ name: String) throws -> [UInt8] { try read("public/typedstream/" + name) }

    /// The bytes of `name` under `sniffing/` (`cases.json`: first bytes and what `InputKind` and the
    /// page's `sniffFormat` tell from them, which the page's node tests read too).
    public static func sniffing(_ name: String) throws -> [UInt8] { try read("sniffing/" + name) }

    /// The bytes of `name` under `data-kinds/` (`cases.json`: data values and the kind
    /// `DataKind` and the page's `dataKind` tell from their signatures, which the page's node
    /// tests read too).
    public static func dataKinds(_ name: String) throws -> [UInt8] { try read("data-kinds/" + name) }

    /// What pytypedstream reads in typedstream fixture `name` (`scripts/gen/typedstream_oracle.py`).
    public static func typedStreamOracle(_ name: String) throws -> String {
        String(decoding: try read("public/typedstream-oracle/" + name + ".events"), as: UTF8.self)
    }

    /// The typedstream fixtures, sorted by name, `malformed` (streams broken on purpose) left out
    /// unless asked for. Never empty.
    public static func typedStreamNames(includingMalformed: Bool = false) -> [String] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("public/typedstream").path)) ?? []
        let names = all.filter { includingMalformed || !malformedTypedStreams.contains($0) }.sorted()
        precondition(names.count >= 20, "only \(names.count) typedstream fixtures in \(directory.path)/public/typedstream")
        return names
    }

    /// The typedstream fixtures that are malformed on purpose (see public/README.md).
    public static let malformedTypedStreams: Set<String> = ["imessage-exporter_attributedBody-ExtraData.bin"]

    private static func read(_ path: String) throws -> [UInt8] {
        Array(try Data(contentsOf: directory.appendingPathComponent(path)))
    }

    /// The archives in `apple/` (binary and XML property lists), sorted by name. Never empty: a
    /// test looping over none would pass without testing anything.
    public static func names() -> [String] {
        let all = (try? FileManager.default.contentsOfDirectory(atPath: directory.appendingPathComponent("apple").path)) ?? []
        let names = all.filter { name in [".bin", ".xml", ".plist", ".archive"].contains { name.hasSuffix($0) } }.sorted()
        precondition(names.count >= 40, "only \(names.count) fixtures in \(directory.path)/apple")
        return names
    }
}
