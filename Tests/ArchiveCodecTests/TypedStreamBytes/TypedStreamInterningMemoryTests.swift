import XCTest

@testable import ArchiveCodec

#if canImport(Glibc)
import Glibc
#endif

/// What a builder holds per distinct string it interns (class names, type strings, C strings
/// of an encoded document): the bytes once in the storage and a few table words, no heap
/// array per string.
final class TypedStreamInterningMemoryTests: XCTestCase {
    #if canImport(Glibc)
    /// The bytes of heap in use, from glibc's `malloc_info` (found with `dlsym`: the Glibc
    /// module does not export malloc.h): what the arenas and mmapped chunks hold, less what is free.
    private func heapInUse() throws -> Int {
        typealias Info = @convention(c) (Int32, UnsafeMutablePointer<FILE>) -> Int32
        let symbol = try XCTUnwrap(dlsym(UnsafeMutableRawPointer(bitPattern: 0), "malloc_info"))
        var buffer: UnsafeMutablePointer<CChar>?
        var size = 0
        let file = try XCTUnwrap(open_memstream(&buffer, &size))
        _ = unsafeBitCast(symbol, to: Info.self)(0, file)
        fclose(file)
        defer { free(buffer) }
        let text = String(cString: try XCTUnwrap(buffer))
        // The totals after the last arena: free chunks (fast, rest), mmapped chunks, the arenas' size.
        let tail = try XCTUnwrap(text.range(of: "</heap>", options: .backwards)).upperBound
        var totals: [String: Int] = [:]
        for line in text[tail...].split(separator: "\n") where line.contains("size=\"") {
            let type = line.split(separator: "\"")[1]
            let size = line.split(separator: "size=\"")[1].prefix { $0.isNumber }
            totals[(line.contains("<system") ? "system-" : "") + type] = Int(size)
        }
        return (totals["system-current"] ?? 0) + (totals["mmap"] ?? 0) - (totals["fast"] ?? 0) - (totals["rest"] ?? 0)
    }

    func testInterningKeepsNoArrayPerString() throws {
        let count = 200_000
        let before = try heapInUse()
        var builder = TypedStreamBuilder(byteOrder: .little)
        try builder.beginGroup(encoding: Array(String(repeating: "*", count: count).utf8))
        for index in 0..<count { try builder.cString(Array("s\(100_000 + index)".utf8)) }
        try builder.end()
        let perString = Double(try heapInUse() - before) / Double(count)
        print("interning: \(perString) bytes of heap per string")
        // The model's own records, with room to grow: a value (12 bytes), a C string (4), a
        // shared string's span (8) and its 7 bytes; the table's slots and hashes, 24 to 48
        // bytes a string. A heap array per string (48 bytes) and a dictionary entry for it
        // went past this.
        XCTAssertLessThan(perString, 120, "\(perString) bytes of heap per interned string")
        withExtendedLifetime(builder) {}
    }
    #endif
}
