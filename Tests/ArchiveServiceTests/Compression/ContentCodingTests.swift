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
}
