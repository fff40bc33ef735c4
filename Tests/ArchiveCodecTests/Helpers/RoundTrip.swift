import TestSupport
import XCTest

@testable import ArchiveCodec

#if canImport(Glibc)
import Glibc
#endif

func roundTrip(_ archive: [UInt8], format: PlistFormat = .binary) throws -> [UInt8] {
    let json = try KeyedArchive(parsing: archive).json(view: .readable, pretty: false)
    return try JSONDocument(parsing: json).archive(format: format)
}
