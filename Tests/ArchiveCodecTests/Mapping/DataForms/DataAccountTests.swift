import TestSupport
import XCTest

@testable import ArchiveCodec

/// The member of an account found by following `path`'s keys through its objects, or nil.
func member(_ value: AccountValue?, _ path: String...) -> AccountValue? {
    var current = value
    for key in path {
        guard case .object(let members) = current else { return nil }
        current = members.first { $0.key == key }?.value
    }
    return current
}

/// The account tree (`AccountValue`): its height is the nesting its JSON text opens, and a
/// document that holds that text agrees with it in every spelling the mapping writes.
final class DataAccountTests: XCTestCase {
    private func randomValue(_ random: inout SplitMix64, levels: Int) -> AccountValue {
        switch Int.random(in: 0..<(levels > 0 ? 12 : 8), using: &random) {
        case 0: return .string(["a", "$x", "$$y", "é", ""].randomElement(using: &random)!)
        case 1: return .integer([0, -1, Int64.min, 1 << 53, Int64.max].randomElement(using: &random)!)
        case 2: return .unsigned([0, UInt64.max, 1 << 60].randomElement(using: &random)!)
        case 3: return .real([0.5, -0.0, .nan, .infinity, 1e300].randomElement(using: &random)!)
        case 4: return .time([0, 0.25, 1e20, .nan, -.infinity, 7.123456789].randomElement(using: &random)!)
        case 5: return .bool(Bool.random(using: &random))
        case 6: return .null
        case 7: return .base64([1, 2, 3])
        case 8, 9: return .array((0..<Int.random(in: 0..<4, using: &random)).map { _ in randomValue(&random, levels: levels - 1) })
        default:
            let keys = ["a", "$b", "$$c", "d e", "volume"].shuffled(using: &random).prefix(Int.random(in: 0..<4, using: &random))
            return .object(keys.map { AccountMember($0, randomValue(&random, levels: levels - 1)) })
        }
    }

    func testHeightIsTheNestingWrittenAndTheTextAgrees() throws {
        var random = SplitMix64(seed: 0xACC0)
        for round in 0..<2_000 {
            let value = randomValue(&random, levels: 4)
            for numbers in [NumberWrapping.nonFinite, .integers, .all] {
                var out = JSONOutput(pretty: round % 2 == 0)
                out.account(value, numbers)
                let text = out.finish()
                XCTAssertEqual(jsonNesting(text), value.height(numbers), String(decoding: text, as: UTF8.self))
                let document = try JSONDocument(parsing: text)
                XCTAssertNil(document.accountDifference(value, document.root), String(decoding: text, as: UTF8.self))
            }
        }
    }

    /// Another value is found at the member that differs, in any member order.
    func testADifferenceIsFoundWhereItIs() throws {
        let value = AccountValue.object([
            AccountMember("path", .array([.string("Users"), .string("me")])), AccountMember("volume", .object([AccountMember("name", .string("HD"))])),
            AccountMember("created", .time(0)), AccountMember("id", .integer(5))
        ])
        let reordered = try JSONDocument(parsing: Array(#"{"id":5,"created":0,"volume":{"name":"HD"},"path":["Users","me"]}"#.utf8))
        XCTAssertNil(reordered.accountDifference(value, reordered.root))
        let cases: [(String, String)] = [
            (#"{"id":5,"created":"2001-01-01T00:00:00Z","volume":{"name":"SSD"},"path":["Users","me"]}"#, "SSD"),
            (#"{"id":6,"created":"2001-01-01T00:00:00Z","volume":{"name":"HD"},"path":["Users","me"]}"#, "6"),
            (#"{"id":5,"created":"2001-01-01T00:00:01Z","volume":{"name":"HD"},"path":["Users","me"]}"#, "2001-01-01T00:00:01Z"),
            (#"{"id":5,"created":0,"volume":{"name":"HD"},"path":["Users"]}"#, #"["Users"]"#),
            (#"{"id":5,"created":0,"volume":{"name":"HD"}}"#, #"{"id""#)
        ]
        for (text, at) in cases {
            let document = try JSONDocument(parsing: Array(text.utf8))
            let (place, _) = try XCTUnwrap(document.accountDifference(value, document.root), text)
            let start = Int(place.offset)
            XCTAssertTrue(text.utf8.dropFirst(start).starts(with: at.utf8) || text.utf8.dropFirst(start).starts(with: ("\"" + at).utf8), "\(text) at \(start)")
        }
    }
}
