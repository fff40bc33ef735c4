import XCTest

@testable import ArchiveCodec

/// Streams nested 100,000 levels deep are built, written, read, written again and released on
/// a thread with a small stack: nothing in the typedstream code recurses per level.
final class TypedStreamDeepNestingTests: XCTestCase {
    static let depth = 100_000
    /// Far less than a recursion 100,000 levels deep would need, whatever its frame.
    static let stackSize = 512 << 10

    /// Builds with `build`, then writes, reads and writes again, all on the small stack;
    /// returns the bytes and whether the two writes agreed.
    func roundTrip(_ build: @escaping (inout TypedStreamBuilder) throws -> Void) -> Result<[UInt8], CodecError> {
        var result: Result<[UInt8], CodecError> = .failure(CodecError(.invalidDocument, "not run"))
        onThread(stackSize: Self.stackSize) {
            do {
                var builder = TypedStreamBuilder(byteOrder: .little)
                try build(&builder)
                let bytes = try TypedStreamWriter.write(try builder.finish())
                let read = try TypedStreamReader.read(bytes)
                let again = try TypedStreamWriter.write(read)
                result = again == bytes ? .success(bytes) : .failure(CodecError(.invalidDocument, "written again differently"))
            } catch let error as CodecError {
                result = .failure(error)
            } catch {
                result = .failure(CodecError(.invalidDocument, "\(error)"))
            }
        }
        return result
    }

    func testObjectsInsideObjects() throws {
        let bytes = try roundTrip { builder in
            let node = try builder.defineClass("Node")
            for _ in 0..<Self.depth {
                try builder.beginGroup("@")
                _ = try builder.beginObject(class: node)
            }
            for _ in 0..<Self.depth {
                try builder.endObject()
                try builder.end()
            }
        }.get()
        // Each level after the first: "@" (0x92), a new object (0x84), class Node by reference.
        XCTAssertGreaterThan(bytes.count, 3 * Self.depth)
    }

    func testStructsArraysAndPointersInsideThemselves() throws {
        for (open, close) in [("{a=", "}"), ("[1", "]"), ("^", "")] {
            let encoding = String(repeating: open, count: Self.depth) + "d" + String(repeating: close, count: Self.depth)
            let bytes = try roundTrip { builder in
                try builder.beginGroup(encoding)
                for _ in 0..<Self.depth { try builder.beginComposite() }
                try builder.double(0.5)
                for _ in 0...Self.depth { try builder.end() }
            }.get()
            XCTAssertEqual(Array(bytes.suffix(9)), [0x83, 0, 0, 0, 0, 0, 0, 0xE0, 0x3F], open)
        }
    }
}
