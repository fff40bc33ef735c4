import TestSupport
import XCTest

@testable import ArchiveCodec

#if canImport(Glibc)
import Glibc
#endif

/// Hostile typedstream documents: what a document declares sizes nothing before it is checked
/// against what the document holds, and the encoder accepts only what the decoder reads back.
final class TypedStreamEncoderBoundsTests: XCTestCase {
    private func encode(_ json: String) throws -> [UInt8] {
        try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)
    }

    private func assertRefused(_ json: String, _ words: String, file: StaticString = #filePath, line: UInt = #line) {
        do {
            _ = try encode(json)
            XCTFail("encoded", file: file, line: line)
        } catch let error as CodecError {
            XCTAssertTrue(error.message.contains(words), "\(error.message) lacks \(words)", file: file, line: line)
        } catch {
            XCTFail("\(error)", file: file, line: line)
        }
    }

    /// The process's peak resident memory in bytes so far.
    private func peakResident() -> Int {
        var usage = rusage()
        getrusage(RUSAGE_SELF.rawValue, &usage)
        return usage.ru_maxrss * 1024
    }

    /// An object's body holds its four keys only, each spelled exactly, and `$class` names the
    /// chain's first class, byte for byte.
    func testAnObjectBodyIsReadByItsKeysExactly() throws {
        func body(_ members: String) -> String { #"{"$typedstream":[{"@":{"# + members + #"}}]}"# }
        let chain = #""$classes":[["Note",1],["NSObject",0]],"$groups":[{"i":5}]"#
        XCTAssertFalse(try encode(body(#""$class":"Note","# + chain)).isEmpty)
        XCTAssertFalse(try encode(body(#""$id":7,"# + chain)).isEmpty)
        XCTAssertFalse(try encode(body(chain)).isEmpty)
        // A key of neither the generic body nor a readable form (whose refusal comes first).
        for wrong in [#""Note""#, #""$clas""#, #""$classez""#, #""$groupz""#, #""$ids""#, #""$i""#] {
            XCTAssertThrowsError(try encode(body(wrong + #":1,"# + chain)), wrong) { error in
                XCTAssertEqual((error as? CodecError)?.kind, .invalidDocument, "\(error)")
            }
        }
        for name in [#""Not""#, #""Notes""#, #""NotE""#, #""NSObject""#, "5", #""\u004eote ""#] {
            assertRefused(body(#""$class":"# + name + "," + chain), "$class is not the first class of $classes")
        }
        // Names and keys spelled with escapes are the same names and keys.
        XCTAssertFalse(try encode(body(#""$class":"\u004eote","# + chain)).isEmpty)
        XCTAssertFalse(try encode(body(#""\u0024class":"Note","\u0024id":3,"\u0024classes":[["Note",1],["NSObject",0]],"$group\u0073":[{"i":5}]"#)).isEmpty)
        assertRefused(body(#""$groups":[]"#), "needs $classes")
    }

    func testDeclaredCountsAreCheckedBeforeAnythingIsReserved() {
        // 39 bytes declaring 100,000,000 values (1.2 GB of value slots), and the same inside a
        // struct, a pointer and an array of arrays.
        let before = peakResident()
        assertRefused(#"{"$typedstream":[{"[100000000i]":[1]}]}"#, "holds 100000000 values, not 1")
        assertRefused(#"{"$typedstream":[{"{?=i[100000000i]}":[1,[1]]}]}"#, "holds 100000000 values, not 1")
        assertRefused(#"{"$typedstream":[{"^[100000000i]":[1]}]}"#, "holds 100000000 values, not 1")
        assertRefused(#"{"$typedstream":[{"[2[100000000i]]":[[1],[1]]}]}"#, "holds 100000000 values, not 1")
        XCTAssertLessThan(peakResident() - before, 64 << 20, "the refusals reserved memory for the declared counts")
    }

    func testTheEncodersBuilderIsHeldToWhatTheDocumentStandsFor() throws {
        // Readable dictionaries of numbers place the most values per JSON value (five).
        let entries = (0..<1000).map { "\"k\($0)\":\($0)" }.joined(separator: ",")
        let document = try JSONDocument(parsing: Array("{\"$typedstream\":[{\"@\":{\(entries)}}]}".utf8))
        let stream = try TypedStreamReader.read(try document.archive(format: .binary))
        XCTAssertLessThanOrEqual(stream.values.count, TypedStreamJSONEncoder.valueLimit(for: document))
        XCTAssertGreaterThan(stream.values.count, 4 * document.valueCount)
        // A builder given a limit refuses past it, before it reserves the run.
        var limited = TypedStreamBuilder(byteOrder: .little, valueLimit: 10)
        try limited.beginGroup("[10i]")
        XCTAssertThrowsError(try limited.beginComposite()) { XCTAssertEqual(($0 as? CodecError)?.kind, .limitExceeded) }
    }

    func testSystemVersionsTheReaderRefusesAreRefused() throws {
        assertRefused(#"{"$systemVersion":3,"$typedstream":[{"i":1}]}"#, "$systemVersion is one Apple or NeXT wrote")
        assertRefused(#"{"$systemVersion":-1000,"$typedstream":[{"i":1}]}"#, "$systemVersion is one Apple or NeXT wrote")
        // Every version the reader reads encodes and reads back, in both byte orders.
        for version in TypedStreamHeader.knownSystemVersions.sorted() {
            for order in ["little", "big"] {
                let bytes = try encode(#"{"$byteOrder":"\#(order)","$systemVersion":\#(version),"$typedstream":[{"i":1}]}"#)
                XCTAssertEqual(try TypedStreamReader.read(bytes).systemVersion, version)
            }
        }
    }

    func testValuesOfNoBytesPastTheReadersDensityAreRefused() throws {
        // A type string of 1,000 `!` and 100 groups of it: the stream would hold 100,000 values
        // in about 1.2 KB, which the reader refuses (`TypedStreamReader.valueLimit(forSize:)`).
        let type = String(repeating: "!", count: 1000)
        let nulls = "[" + Array(repeating: "null", count: 1000).joined(separator: ",") + "]"
        let groups = Array(repeating: "{\"\(type)\":\(nulls)}", count: 100).joined(separator: ",")
        assertRefused("{\"$typedstream\":[\(groups)]}", "more than a reader accepts")
        // Three groups are within it, and read back.
        let few = Array(repeating: "{\"\(type)\":\(nulls)}", count: 3).joined(separator: ",")
        XCTAssertNoThrow(try TypedStreamReader.read(try encode("{\"$typedstream\":[\(few)]}")))
    }

    func testClassVersionsAndNamesReadBack() throws {
        // The widest versions, and a name that is not ASCII.
        let json = ##"{"$typedstream":[{"#":[["Ünïcode",-9223372036854775808],["Root",9223372036854775807]]}]}"##
        let stream = try TypedStreamReader.read(try encode(json))
        XCTAssertEqual(stream.classes.map(\.version).sorted(), [Int64.min, Int64.max])
    }
}
