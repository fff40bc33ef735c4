import TestSupport
import XCTest

@testable import ArchiveCodec

/// `DistinctKeyCheck` never rules out a repeat that is there, and rules most small sets of
/// distinct keys out.
final class DistinctKeyCheckTests: XCTestCase {
    func testARepeatedKeyIsNeverRuledOut() {
        var generator = TestRandom(for: self)
        for count in 2...40 {
            for _ in 0..<50 {
                var keys = (0..<count - 1).map { _ in Int.random(in: .min ... .max, using: &generator) }
                keys.insert(keys.randomElement(using: &generator)!, at: Int.random(in: 0...keys.count, using: &generator))
                var check = DistinctKeyCheck()
                for key in keys { check.note(key) }
                XCTAssertTrue(check.mayRepeat, "\(keys)")
            }
        }
    }

    func testDistinctSmallKeySetsAreMostlyRuledOut() {
        // Keys as a keyed archive notes them (consecutive references) and as hashes.
        var ruledOut = 0
        var total = 0
        for start in 0..<1_000 {
            for count in 1...6 {
                var check = DistinctKeyCheck()
                for key in start..<start + count { check.note(key) }
                total += 1
                if !check.mayRepeat { ruledOut += 1 }
            }
        }
        // And as a typedstream dictionary notes its keys: hashes of their texts.
        for start in 0..<1_000 {
            for count in 1...6 {
                var check = DistinctKeyCheck()
                for key in start..<start + count {
                    let text = Array("key \(key)".utf8)
                    check.note(Int(truncatingIfNeeded: text.withUnsafeBufferPointer(ByteStringTable.hash)))
                }
                total += 1
                if !check.mayRepeat { ruledOut += 1 }
            }
        }
        XCTAssertGreaterThan(Double(ruledOut) / Double(total), 0.9)
        var check = DistinctKeyCheck()
        check.note(1)
        XCTAssertFalse(check.mayRepeat, "one key")
    }
}
