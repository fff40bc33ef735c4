import TestSupport
import XCTest

@testable import ArchiveServer

/// Reading `Content-Encoding` and choosing a reply's coding from `Accept-Encoding`.
final class ContentCodingTests: XCTestCase {
    func testRequestCodings() throws {
        let cases: [(String?, ContentCoding)] = [
            (nil, .identity), ("", .identity), ("identity", .identity), ("gzip", .gzip), ("GZip", .gzip),
            ("x-gzip", .gzip), (" deflate ", .deflate), ("identity, gzip", .gzip), ("deflate, identity", .deflate)
        ]
        for (header, expected) in cases {
            XCTAssertEqual(try ContentCoding.ofRequest(contentEncoding: header), expected, header ?? "nil")
        }
        for header in ["br", "zstd", "compress", "gzip, gzip", "gzip, deflate", "gzip;q=1"] {
            XCTAssertThrowsError(try ContentCoding.ofRequest(contentEncoding: header), header) { error in
                XCTAssertEqual((error as? ContentCoding.Unsupported)?.value, header)
            }
        }
    }

    func testReplyCodingFollowsWeights() {
        let cases: [(String?, ContentCoding)] = [
            (nil, .identity), ("", .identity),
            ("gzip", .gzip), ("deflate", .deflate), ("x-gzip", .gzip),
            ("gzip, deflate", .gzip), ("deflate, gzip", .gzip),
            ("deflate, gzip, br, zstd", .gzip),  // curl --compressed
            ("gzip;q=0, deflate", .deflate),
            ("deflate;q=1.0, gzip;q=0.5", .deflate),
            ("gzip;q=0.5", .gzip),  // identity, not named, comes last
            ("identity;q=1, gzip;q=0.5", .identity),
            ("*", .gzip), ("*;q=0", .identity), ("*;q=0, deflate", .deflate),
            ("br", .identity), ("br, zstd", .identity),
            ("gzip;q=abc", .identity), ("gzip;q=2", .identity), ("gzip ; q=0.001", .gzip),
            ("identity;q=0", .identity), (",,;", .identity), ("GZIP;Q=1", .gzip)
        ]
        for (header, expected) in cases {
            XCTAssertEqual(ContentCoding.forReply(acceptEncoding: header), expected, header ?? "nil")
        }
    }

    /// The reading over bytes chooses as a reading over strings does (`reference`, the rule
    /// written plainly with a dictionary of weights), on many headers made of the pieces that
    /// matter: names in any case, weights valid and not, empty pieces, whitespace.
    func testReplyCodingAgreesWithThePlainReading() {
        func reference(_ header: String) -> ContentCoding {
            guard !header.isEmpty else { return .identity }
            var weights: [String: Double] = [:]
            for member in header.split(separator: ",") {
                let parts = member.split(separator: ";").map { String($0).trimmingASCIIWhitespace().lowercased() }
                guard let name = parts.first, !name.isEmpty else { continue }
                var weight = 1.0
                for parameter in parts.dropFirst() where parameter.hasPrefix("q=") {
                    weight = Double(parameter.dropFirst(2)).flatMap { (0...1).contains($0) ? $0 : nil } ?? 0
                }
                weights[name == "x-gzip" ? "gzip" : name] = weight
            }
            var best = ContentCoding.identity
            var bestWeight = 0.0
            for coding in [ContentCoding.gzip, .deflate, .identity] {
                let candidate = weights[coding.rawValue] ?? weights["*"] ?? (coding == .identity ? Double.leastNonzeroMagnitude : 0)
                if candidate > bestWeight { (best, bestWeight) = (coding, candidate) }
            }
            return best
        }
        let pieces = [
            "gzip", "GZIP", "x-gzip", "deflate", "Deflate", "identity", "*", "br", " ", "", ";", ";q=0", ";q=1", ";Q=0.5", "; q=0.25",
            ";q=2", ";q=abc", ";q=", ";level=1", ",", ", ", "\t"
        ]
        var random = SplitMix64(seed: 7)
        for _ in 0..<20_000 {
            let header = (0..<Int.random(in: 1...6, using: &random)).map { _ in pieces.randomElement(using: &random)! }.joined()
            XCTAssertEqual(ContentCoding.forReply(acceptEncoding: header), reference(header), header.debugDescription)
        }
    }
}

extension String {
    fileprivate func trimmingASCIIWhitespace() -> String {
        let isSpace = { (c: Character) in c == " " || ("\t"..."\r").contains(c) }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(self[first...last])
    }
}
