import TestSupport
import XCTest

@testable import ArchiveCodec

/// `RealSpelling` is `description`'s text for every double but a NaN (which the writers spell
/// themselves, never through it).
final class RealSpellingTests: XCTestCase {
    func testSpellingIsDescription() {
        var values: [Double] = [
            0, -0.0, 1, -1, 0.1, 1.5, 100, 1e16, 1e-7, 123_456_789.123_456_78, -2.2250738585072014e-308, .leastNonzeroMagnitude,
            -.leastNonzeroMagnitude, .greatestFiniteMagnitude, -.greatestFiniteMagnitude, .leastNormalMagnitude, .pi, .infinity, -.infinity
        ]
        var generator = TestRandom(for: self)
        for _ in 0..<20_000 { values.append(Double(bitPattern: generator.next())) }
        for _ in 0..<2_000 { values.append(Double.random(in: -1e6...1e6, using: &generator)) }
        for value in values where !value.isNaN {
            let spelling = RealSpelling(value)
            XCTAssertEqual(spelling.withBytes { String(decoding: $0, as: UTF8.self) }, value.description, "\(value.bitPattern)")
            XCTAssertEqual(spelling.hasMarker, value.isFinite, value.description)
        }
    }
}
