import ArchiveCodec
import XCTest

/// Fails the test unless the two archives are equivalent (`KeyedArchive.difference(from:)`).
func assertEquivalent(_ a: [UInt8], _ b: [UInt8], file: StaticString = #filePath, line: UInt = #line) throws {
    if let problem = try KeyedArchive(parsing: a).difference(from: KeyedArchive(parsing: b)) {
        XCTFail(problem, file: file, line: line)
    }
}
