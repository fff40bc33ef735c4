import Foundation
import XCTest

@testable import ArchiveCodec

/// Keys come from `KeyTextCache` once seen: the text must be what writing them afresh gives,
/// for escaped, `$`-prefixed, UTF-16, long keys, and more keys than the cache has slots.
final class KeyTextCacheTests: XCTestCase {
    func testCachedKeysReadBackAsWritten() throws {
        let keys =
            ["plain", "$dollar", "quote\"back\\slash", "ключ", "emoji 🎲", String(repeating: "long", count: 20)]
            + (0..<600).map { "k\($0)" }
        var entries: [Entry] = []
        for round in 0..<3 {
            for start in stride(from: 0, to: keys.count, by: 7) {
                let pairs = keys[start..<min(start + 7, keys.count)].map { ($0, Value.int(Int64(round))) }
                entries.append(.object("Thing", pairs))
            }
        }
        entries.insert(.object("NSArray", [("NS.objects", .array((2...(entries.count + 1)).map { .uid($0) }))]), at: 0)
        let archive = try buildArchive(entries)
        let decoded = try KeyedArchive(parsing: archive)
        for pretty in [false, true] {
            let json = try decoded.json(view: .readable, pretty: pretty)
            let items = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(json)) as? [[String: Any]], String(decoding: json.prefix(80), as: UTF8.self))
            XCTAssertEqual(items.count, entries.count - 1)
            var seen = Set<String>()
            for item in items { seen.formUnion(item.keys) }
            seen.remove("$class")
            let expected = Set(keys.map { $0.hasPrefix("$") ? "$" + $0 : $0 })
            XCTAssertEqual(seen, expected)
            try assertEquivalent(archive, try JSONDocument(parsing: json).archive(format: .binary))
        }
    }
}
