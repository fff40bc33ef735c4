import Foundation
import TestSupport
import XCTest

/// File names that are not UTF-8 (Latin-1 from a zip file, bytes from an old HFS copy) in a
/// batch: found in a walk and taken from the command line as their bytes, written under the
/// same bytes plus `.json`, shown on stderr with those bytes as `\xNN`, and carried exactly by
/// `--ndjson` (`fileBase64`).
final class ByteNameTests: XCTestCase {
    private var scratch: URL!
    /// The scratch folder's path, as bytes to put a name after.
    private var root: String { scratch.path + "/" }

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("archive-tool-names-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
    }

    private var archive: Data {
        get throws { try Data(contentsOf: Fixtures.directory.appendingPathComponent("apple/scl-NSKeyedUnarchiver-OrderedSetTest.plist")) }
    }

    /// `archive` decoded alone, as the output of each name must read.
    private func decodedArchive() throws -> Data {
        let single = scratch.appendingPathComponent("single.json")
        let path = Fixtures.directory.appendingPathComponent("apple/scl-NSKeyedUnarchiver-OrderedSetTest.plist").path
        XCTAssertEqual(try ToolRun.run(["decode", path], stdout: single).status, 0)
        return try Data(contentsOf: single)
    }

    private let latin1 = Array("caf".utf8) + [0xE9] + Array(".plist".utf8)  // café.plist in Latin-1
    private let invalid = Array("x".utf8) + [0xFF, 0xC0] + Array("y.plist".utf8)  // no encoding's text
    private let latin1Folder = Array("d".utf8) + [0xE9, 0x6A, 0xE0]  // déjà in Latin-1

    func testAWalkConvertsNamesThatAreNotUTF8UnderTheirBytes() throws {
        let input = BytePathFiles.path(root, Array("in".utf8))
        try BytePathFiles.makeFolder(input)
        try BytePathFiles.makeFolder(input + [0x2F] + latin1Folder)
        try BytePathFiles.write(try archive, to: input + [0x2F] + latin1)
        try BytePathFiles.write(try archive, to: input + [0x2F] + latin1Folder + [0x2F] + invalid)
        try BytePathFiles.write(try archive, to: input + Array("/ok.plist".utf8))
        let out = BytePathFiles.path(root, Array("out".utf8))
        let result = try ToolRun.run(bytes: [Array("decode".utf8), Array("--recursive".utf8), Array("--output-dir".utf8), out, input], stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertTrue(result.stderr.hasPrefix("archive-tool: decoded 3 of 3 files"), result.stderr)
        let json = Array(".json".utf8)
        XCTAssertEqual(try BytePathFiles.names(in: out), [latin1 + json, Array("d".utf8) + [0xE9, 0x6A, 0xE0], Array("ok.plist.json".utf8)].sorted { $0.lexicographicallyPrecedes($1) })
        XCTAssertEqual(try BytePathFiles.names(in: out + [0x2F] + latin1Folder), [invalid + json])
        let decoded = try decodedArchive()
        XCTAssertEqual(try BytePathFiles.read(out + [0x2F] + latin1 + json), decoded)
        XCTAssertEqual(try BytePathFiles.read(out + [0x2F] + latin1Folder + [0x2F] + invalid + json), decoded)
        // And back: encode takes `.json` off the same bytes.
        let back = BytePathFiles.path(root, Array("back".utf8))
        let encoded = try ToolRun.run(bytes: [Array("encode".utf8), Array("--recursive".utf8), Array("--output-dir".utf8), back, out], stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(encoded.status, 0, encoded.stderr)
        XCTAssertEqual(try BytePathFiles.names(in: back + [0x2F] + latin1Folder), [invalid])
        XCTAssertTrue(try BytePathFiles.names(in: back).contains(latin1))
    }

    /// Given on the command line, among options that take values and after `--`; two of one
    /// name numbered as any; into a folder whose own name is not UTF-8 (`--output-dir DIR` and
    /// `--output-dir=DIR`); the single forms too, and `-o`'s file.
    func testNamesGivenOnTheCommandLineAreTakenAsTheirBytes() throws {
        let first = BytePathFiles.path(root, Array("a".utf8))
        let second = BytePathFiles.path(root, Array("b".utf8))
        for folder in [first, second] {
            try BytePathFiles.makeFolder(folder)
            try BytePathFiles.write(try archive, to: folder + [0x2F] + latin1)
        }
        try BytePathFiles.write(try archive, to: first + [0x2F] + invalid)
        let out = BytePathFiles.path(root, Array("out-".utf8) + [0xE9])
        let arguments: [[UInt8]] = [
            Array("decode".utf8), Array("--jobs".utf8), Array("2".utf8), Array("--output-dir".utf8), out,
            first + [0x2F] + latin1, second + [0x2F] + latin1, Array("--".utf8), first + [0x2F] + invalid
        ]
        let result = try ToolRun.run(bytes: arguments, stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(result.status, 0, result.stderr)
        let json = Array(".json".utf8)
        let numbered = Array("caf".utf8) + [0xE9] + Array(".plist-2.json".utf8)
        XCTAssertEqual(try BytePathFiles.names(in: out), [latin1 + json, numbered, invalid + json].sorted { $0.lexicographicallyPrecedes($1) })
        let decoded = try decodedArchive()
        for name in [latin1 + json, numbered, invalid + json] { XCTAssertEqual(try BytePathFiles.read(out + [0x2F] + name), decoded) }
        // The renaming is said with the bytes escaped, the folder too.
        XCTAssertTrue(result.stderr.contains("\(root)b/caf\\xE9.plist → \(root)out-\\xE9/caf\\xE9.plist-2.json"), result.stderr)
        XCTAssertTrue(result.stderr.contains("into \(root)out-\\xE9"), result.stderr)
        // `decode FILE` (without the parser) and `decode --max-depth N -o OUT FILE` (through it).
        let alone = scratch.appendingPathComponent("alone.json")
        let plain = try ToolRun.run(bytes: [Array("decode".utf8), first + [0x2F] + latin1], stdout: alone)
        XCTAssertEqual(plain.status, 0, plain.stderr)
        XCTAssertEqual(try Data(contentsOf: alone), decoded)
        // `-o` names its file by bytes too: without the parser, and through it (`--max-depth`).
        let named = BytePathFiles.path(root, Array("plain-".utf8) + [0xE9] + Array(".json".utf8))
        let plainNamed = try ToolRun.run(bytes: [Array("decode".utf8), first + [0x2F] + latin1, Array("-o".utf8), named], stdout: alone)
        XCTAssertEqual(plainNamed.status, 0, plainNamed.stderr)
        XCTAssertEqual(try BytePathFiles.read(named), decoded)
        let parsed = BytePathFiles.path(root, Array("parsed-".utf8) + [0xFF] + Array(".json".utf8))
        let parserArguments: [[UInt8]] = [Array("decode".utf8), Array("--max-depth".utf8), Array("1000".utf8), Array("--output".utf8), parsed, first + [0x2F] + invalid]
        let throughParser = try ToolRun.run(bytes: parserArguments, stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(throughParser.status, 0, throughParser.stderr)
        XCTAssertEqual(try BytePathFiles.read(parsed), decoded)
        // `--output-dir=DIR`, one word.
        let attached = BytePathFiles.path(root, Array("attached-".utf8) + [0xE9])
        let attachedRun = try ToolRun.run(bytes: [Array("decode".utf8), Array("--output-dir=".utf8) + attached, first + [0x2F] + latin1], stdout: alone)
        XCTAssertEqual(attachedRun.status, 0, attachedRun.stderr)
        XCTAssertEqual(try BytePathFiles.read(attached + [0x2F] + latin1 + json), decoded)
        // `-oFILE`, one word, by bytes too.
        let joined = BytePathFiles.path(root, Array("joined-".utf8) + [0xE9] + Array(".json".utf8))
        let joinedRun = try ToolRun.run(bytes: [Array("decode".utf8), first + [0x2F] + latin1, Array("-o".utf8) + joined], stdout: alone)
        XCTAssertEqual(joinedRun.status, 0, joinedRun.stderr)
        XCTAssertEqual(try BytePathFiles.read(joined), decoded)
    }

    /// `get`, `set` (and `insert`, `remove`), `compare`, `depth` and `summary` read a file named
    /// by bytes, and `-o` writes one.
    func testTheCommandsOnOneFileTakeItsBytes() throws {
        let source = try Data(contentsOf: Fixtures.directory.appendingPathComponent("apple/goios_arrays.bin"))
        let file = BytePathFiles.path(root, latin1)
        try BytePathFiles.write(source, to: file)
        let out = scratch.appendingPathComponent("out")
        func run(_ words: [[UInt8]]) throws -> (status: Int32, stdout: String, stderr: String) {
            try? FileManager.default.removeItem(at: out)
            let result = try ToolRun.run(bytes: words, stdout: out)
            return (result.status, String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self), result.stderr)
        }
        let path = Array(#"."$1"[1]"#.utf8)
        let got = try run([Array("get".utf8), file, path])
        XCTAssertEqual(got.status, 0, got.stderr)
        XCTAssertEqual(got.stdout, "\"Hello, World!\"\n")
        let edited = BytePathFiles.path(root, Array("edited-".utf8) + [0xE9] + Array(".bin".utf8))
        let set = try run([Array("set".utf8), file, path, Array(#""Bye""#.utf8), Array("-o".utf8), edited])
        XCTAssertEqual(set.status, 0, set.stderr)
        XCTAssertEqual(try run([Array("get".utf8), edited, path]).stdout, "\"Bye\"\n")
        let compared = try run([Array("compare".utf8), file, file])
        XCTAssertEqual(compared.status, 0, compared.stderr)
        XCTAssertEqual(compared.stdout, "same\n")
        let depth = try run([Array("depth".utf8), file])
        XCTAssertEqual(depth.status, 0, depth.stderr)
        let summary = try run([Array("summary".utf8), Array("--json".utf8), file])
        XCTAssertEqual(summary.status, 0, summary.stderr)
    }

    /// A failure's line begins with the path, its bytes that are not UTF-8 as `\xNN` and what a
    /// terminal acts on escaped as ever; no byte of the name is written as it is.
    func testStderrShowsBytesThatAreNotUTF8Escaped() throws {
        let input = BytePathFiles.path(root, Array("in".utf8))
        try BytePathFiles.makeFolder(input)
        let name = Array("bad".utf8) + [0xE9, 0x1B] + Array("[2J.plist".utf8)
        try BytePathFiles.write(Data("bplist00 broken".utf8), to: input + [0x2F] + name)
        let result = try ToolRun.run(
            bytes: [Array("decode".utf8), Array("--recursive".utf8), Array("--output-dir".utf8), BytePathFiles.path(root, Array("out".utf8)), input],
            stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(result.status, 1, result.stderr)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, result.stderr)
        XCTAssertTrue((lines.first ?? "").hasPrefix("\(root)in/bad\\xE9\\u{1B}[2J.plist: not a readable property list"), result.stderr)
        XCTAssertFalse(result.stderr.unicodeScalars.contains("\u{FFFD}"), "a byte that is not UTF-8 written as it is: \(result.stderr)")
        XCTAssertFalse(result.stderr.unicodeScalars.contains("\u{1B}"), result.stderr)
    }

    /// A missing file is said to be missing; the note that a name reached the tool changed is
    /// for a name that holds U+FFFD (what a repaired name holds), not for one in Latin-1 that is
    /// still its own bytes.
    func testAMissingFileIsCalledChangedOnlyWhenItsNameWasRepaired() throws {
        let stdout = scratch.appendingPathComponent("stdout")
        let missingLatin1 = try ToolRun.run(bytes: [Array("decode".utf8), BytePathFiles.path(root, latin1)], stdout: stdout)
        XCTAssertEqual(missingLatin1.status, 4, missingLatin1.stderr)
        XCTAssertTrue(missingLatin1.stderr.contains("No such file"), missingLatin1.stderr)
        XCTAssertFalse(missingLatin1.stderr.contains("reaches this command changed"), missingLatin1.stderr)
        let repaired = BytePathFiles.path(root, Array("caf\u{FFFD}.plist".utf8))
        let missingRepaired = try ToolRun.run(bytes: [Array("decode".utf8), repaired], stdout: stdout)
        XCTAssertEqual(missingRepaired.status, 4, missingRepaired.stderr)
        XCTAssertTrue(missingRepaired.stderr.contains("reaches this command changed"), missingRepaired.stderr)
    }

    /// `--ndjson`: `file` is text (U+FFFD for each byte that is not UTF-8) and `fileBase64` the
    /// exact bytes; a UTF-8 name has `file` alone.
    func testLinesCarryTheNameExactly() throws {
        let folder = BytePathFiles.path(root, Array("in".utf8))
        try BytePathFiles.makeFolder(folder)
        let odd = folder + [0x2F] + invalid
        let plain = folder + Array("/ok.plist".utf8)
        try BytePathFiles.write(try archive, to: odd)
        try BytePathFiles.write(try archive, to: plain)
        let out = scratch.appendingPathComponent("lines.ndjson")
        let result = try ToolRun.run(bytes: [Array("decode".utf8), Array("--ndjson".utf8), odd, plain], stdout: out)
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = try Data(contentsOf: out).split(separator: UInt8(ascii: "\n"))
        guard lines.count == 2 else { return XCTFail("\(lines.count) lines: \(result.stderr)") }
        let decoded = try JSONSerialization.jsonObject(with: try decodedArchive(), options: [.fragmentsAllowed]) as? NSObject
        let first = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[0])) as? [String: Any])
        XCTAssertEqual(first["file"] as? String, "\(root)in/x\u{FFFD}\u{FFFD}y.plist")
        XCTAssertEqual((first["fileBase64"] as? String).flatMap { Data(base64Encoded: $0) }, Data(odd))
        XCTAssertEqual(first["document"] as? NSObject, decoded)
        let second = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[1])) as? [String: Any])
        XCTAssertEqual(second["file"] as? String, "\(root)in/ok.plist")
        XCTAssertNil(second["fileBase64"])
        XCTAssertEqual(second["document"] as? NSObject, decoded)
    }

    /// A summary of several files names the file of each largest value: `file` as text,
    /// `fileBase64` the exact bytes where the name is not UTF-8 (as `--ndjson` does).
    func testASummaryNamesItsFilesExactly() throws {
        let odd = BytePathFiles.path(root, latin1)
        let plain = BytePathFiles.path(root, Array("ok.plist".utf8))
        try BytePathFiles.write(try archive, to: odd)
        try BytePathFiles.write(try archive, to: plain)
        let out = scratch.appendingPathComponent("summary.json")
        let result = try ToolRun.run(bytes: [Array("summary".utf8), Array("--json".utf8), odd, plain], stdout: out)
        XCTAssertEqual(result.status, 0, result.stderr)
        let summary = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: out)) as? [String: Any])
        let largest = (summary["largestStrings"] as? [[String: Any]] ?? []) + (summary["largestData"] as? [[String: Any]] ?? [])
        XCTAssertFalse(largest.isEmpty)
        let byFile = Dictionary(grouping: largest) { $0["file"] as? String ?? "" }
        let oddEntries = try XCTUnwrap(byFile["\(root)caf\u{FFFD}.plist"], "\(byFile.keys)")
        for entry in oddEntries { XCTAssertEqual((entry["fileBase64"] as? String).flatMap { Data(base64Encoded: $0) }, Data(odd)) }
        for entry in try XCTUnwrap(byFile["\(root)ok.plist"]) { XCTAssertNil(entry["fileBase64"]) }
    }
}
