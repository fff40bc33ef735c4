import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// Read and write speed on two large streams, printed in MB/s. Skipped unless
/// TYPEDSTREAM_SPEED is set, and meant for a release build:
///
///     TYPEDSTREAM_SPEED=1 swift test -c release -j 1 -Xswiftc -enable-testing --filter TypedStreamSpeedTests
///
/// The streams: Emacs.clr's body (752 named colours) repeated 400 times (each repeat's
/// references point back into the first, as a stream's may), and an NSArray of 1,000,000
/// objects built by hand, NSNumbers and NSStrings in turn.
final class TypedStreamSpeedTests: XCTestCase {
    override func setUpWithError() throws {
        try XCTSkipIf(ProcessInfo.processInfo.environment["TYPEDSTREAM_SPEED"] == nil, "set TYPEDSTREAM_SPEED=1 (and build for release) to measure")
    }

    func testRepeatedColourList() throws {
        let clr = try Fixtures.typedStream("python-typedstream_Emacs.clr")
        let header = 16
        var bytes = Array(clr[..<header])
        for _ in 0..<400 { bytes += clr[header...] }
        try measure(bytes, "Emacs.clr body × 400")
    }

    func testMillionObjects() throws {
        var builder = TypedStreamBuilder(byteOrder: .little)
        let root = try builder.defineClass("NSObject")
        let array = try builder.defineClass("NSArray", superclass: root)
        let value = try builder.defineClass("NSValue", superclass: root)
        let number = try builder.defineClass("NSNumber", superclass: value)
        let string = try builder.defineClass("NSString", version: 1, superclass: root)
        let count = 1_000_000
        let started = Date()
        try builder.beginGroup("@")
        _ = try builder.beginObject(class: array)
        try builder.beginGroup("i")
        try builder.integer(Int64(count))
        try builder.end()
        for index in 0..<count {
            try builder.beginGroup("@")
            if index % 2 == 0 {
                _ = try builder.beginObject(class: number)
                try builder.beginGroup("*")
                try builder.cString(Array("q".utf8))
                try builder.end()
                try builder.beginGroup("q")
                try builder.integer(Int64(index) * 7919)
                try builder.end()
            } else {
                _ = try builder.beginObject(class: string)
                try builder.beginGroup("+")
                try builder.byteString(Array("item \(index)".utf8))
                try builder.end()
            }
            try builder.endObject()
            try builder.end()
        }
        try builder.endObject()
        try builder.end()
        let stream = try builder.finish()
        print(String(format: "typedstream speed: built 1,000,000 objects by hand in %.2f s", Date().timeIntervalSince(started)))
        try measure(try TypedStreamWriter.write(stream), "NSArray of 1,000,000 NSNumbers and NSStrings")
    }

    /// Reads and writes `bytes` five times each and prints the best rate of each.
    func measure(_ bytes: [UInt8], _ label: String) throws {
        var read = Double.infinity
        var write = Double.infinity
        var stream: TypedStream?
        for _ in 0..<5 {
            let start = Date()
            stream = try TypedStreamReader.read(bytes)
            let middle = Date()
            let written = try TypedStreamWriter.write(stream!)
            let end = Date()
            XCTAssertEqual(written.count, bytes.count)
            read = min(read, middle.timeIntervalSince(start))
            write = min(write, end.timeIntervalSince(middle))
        }
        let megabytes = Double(bytes.count) / 1_000_000
        print(
            String(
                format: "typedstream speed: %@: %.1f MB, %d values, model %.1f× the input; read %.0f MB/s (%.3f s), write %.0f MB/s (%.3f s)", label, megabytes,
                stream!.values.count, Double(Self.modelBytes(stream!)) / Double(bytes.count), megabytes / read, read, megabytes / write, write))
    }

    /// The bytes the model's tables hold beyond the input it keeps (their counts, not the
    /// room reserved).
    static func modelBytes(_ stream: TypedStream) -> Int {
        stream.values.count * MemoryLayout<TypedStream.Value>.stride
            + stream.objects.count * MemoryLayout<TypedStream.Object>.stride + stream.classes.count * MemoryLayout<TypedStream.Class>.stride
            + stream.cStrings.count * 4 + stream.sharedStrings.count * MemoryLayout<TypedStream.Span>.stride
            + stream.types.nodes.count * MemoryLayout<TypeTable.Node>.stride
    }
}
