import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

final class ComponentTextTests: XCTestCase {
    private func read(_ text: String) -> ComponentText? {
        Array(text.utf8).withUnsafeBufferPointer { ComponentText($0) }
    }

    /// The texts of the fixtures: NSRGB and NSWhite as C strings, NSComponents without the NUL.
    func testReadsWhatColourArchivesHold() {
        XCTAssertEqual(read("0.9861047268 0 0.0832362771\0"), ComponentText(components: [0.9861047268, 0, 0.0832362771], terminated: true))
        XCTAssertEqual(read("1 0.1058823529 0.09803921569 1"), ComponentText(components: [1, 0.1058823529, 0.09803921569, 1], terminated: false))
        XCTAssertEqual(read("0.66666669\0"), ComponentText(components: [0.66666669], terminated: true))
        XCTAssertEqual(read("0\0"), ComponentText(components: [0], terminated: true))
        XCTAssertEqual(read("1e-05 -0.5 123456\0")?.components, [1e-05, -0.5, 123456])
    }

    /// Text that the components would not spell again stays bytes.
    func testRefusesTextThatDoesNotSpellItselfBack() {
        for text in [
            "", "\0", "0.50\0", "1.0\0", "00.5", ".5", "5.", "+1", "-0", "1e5", "0.00001", "nan", "inf", "1  0", "1 0 ", " 1", "1\0\0", "1\00",
            "0.5\u{0}junk", "0x1p3", "1,5", "0.12345678901234567"
        ] {
            XCTAssertNil(read(text), text.debugDescription)
        }
    }

    func testBytesAreTheTextBack() {
        for text in ["0.9861047268 0 0.0832362771\0", "1 0.1058823529 0.09803921569 1", "2.5e-07 1e+20\0", "0.0001 1234.5"] {
            XCTAssertEqual(read(text)?.bytes, Array(text.utf8), text.debugDescription)
        }
        XCTAssertEqual(ComponentText(components: [0.5, 1, 0], terminated: false).bytes, Array("0.5 1 0".utf8))
    }

    /// The fast path agrees with the general reading on every token it reads, and reads the
    /// `%.10g` spellings of colour components (how AppKit writes them).
    func testShortDecimalsAgreeWithTheGeneralReading() {
        var random = SplitMix64(seed: 11)
        for round in 0..<20_000 {
            let token: String
            switch round % 4 {
            case 0: token = String(format: "%.10g", Double(random.next() % 256) / 255)
            case 1: token = ComponentText.spelling(of: Double(random.next() % 1_000_000_000) / Double([1, 10, 1_000, 100_000][Int(random.next() % 4)]))
            case 2: token = ComponentText.spelling(of: Double(bitPattern: random.next() >> 2))
            default:
                let digits = (0..<Int(1 + random.next() % 20)).map { _ in String(random.next() % 10) }.joined()
                let point = Int(random.next() % UInt64(digits.count + 1))
                token = String(digits.prefix(point)) + (point < digits.count ? "." + digits.dropFirst(point) : "")
            }
            let fast = Array(token.utf8).withUnsafeBufferPointer { ComponentText.shortDecimal($0) }
            let general = Double(token).flatMap { ComponentText.spelling(of: $0) == token && $0.isFinite ? $0 : nil }
            if let fast { XCTAssertEqual(fast, general, token) }
            if round % 4 == 0 { XCTAssertNotNil(fast, token) }
        }
    }
}
