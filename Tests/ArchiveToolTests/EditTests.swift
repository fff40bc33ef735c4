import ArchiveCodec
import Foundation
import TestSupport
import XCTest

/// `archive-tool set`, `insert` and `remove`: the document written back in its own format with
/// that one place changed, which `compare` then names as the only difference.
final class EditTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("archive-tool-edit-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// Runs the tool with stdout into a scratch file: status, stdout, stderr.
    private func tool(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let out = scratch.appendingPathComponent("stdout-\(UUID().uuidString)")
        let (status, stderr) = try ToolRun.run(arguments, stdout: out)
        return (status, String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self), stderr)
    }

    /// Edits `file` and returns what `compare` says of the original and the result.
    private func compareAfter(_ arguments: [String], file: URL, nested: Bool = false, file line: UInt = #line) throws -> String {
        let result = scratch.appendingPathComponent("result-\(UUID().uuidString)")
        var command = [arguments[0]]
        if nested { command.append("--nested") }
        command.append(file.path)
        command += arguments.dropFirst()
        command += ["-o", result.path]
        let edit = try tool(command)
        XCTAssertEqual(edit.status, 0, edit.stderr, line: line)
        // compare reads nested payloads on its own.
        let compare = try tool(["compare", file.path, result.path])
        XCTAssertEqual(compare.status, 1, compare.stdout + compare.stderr, line: line)
        return compare.stdout
    }

    func testKeyedArchive() throws {
        let archive = Fixtures.directory.appendingPathComponent("apple/scl-NSKeyedUnarchiver-ComplexTest.plist")
        XCTAssertTrue(try compareAfter(["set", ".array[1]", #""bye""#], file: archive).hasSuffix(#": "hello" ≠ "bye""# + "\n"))
        XCTAssertEqual(try compareAfter(["set", #".url."NS.relative""#, #""about.html""#], file: archive), #".url["NS.relative"]: "index.xml" ≠ "about.html""# + "\n")
        XCTAssertTrue(try compareAfter(["remove", ".array[0]"], file: archive).contains("4 elements ≠ 3"))
        XCTAssertTrue(try compareAfter(["insert", ".array[4]", "5"], file: archive).contains("4 elements ≠ 5"))
        XCTAssertTrue(try compareAfter(["insert", ".extra", "[1,2]"], file: archive).contains(".: 4 members ≠ 5"))
        // The value read back is the one set.
        let result = scratch.appendingPathComponent("set.plist")
        XCTAssertEqual(try tool(["set", archive.path, ".array[3].key", #"{"$date":"2024-01-02T03:04:05Z"}"#, "-o", result.path]).status, 0)
        XCTAssertEqual(try tool(["get", result.path, ".array[3].key"]).stdout, #"{"$date":"2024-01-02T03:04:05Z"}"# + "\n")
        XCTAssertEqual(try Data(contentsOf: result).prefix(8), Data("bplist00".utf8))
    }

    /// An XML property list is written back as XML; a binary one as binary.
    func testPlainPropertyListsKeepTheirFormat() throws {
        let binary = Fixtures.directory.appendingPathComponent("public/plain-plist/imessage-exporter_message_summary_info-Deleted.plist")
        XCTAssertEqual(try compareAfter(["set", ".rp[0]", "7"], file: binary), ".$propertyList.rp[0]: 0 ≠ 7\n")
        let theme = Fixtures.directory.appendingPathComponent("public/plain-plist-with-nested-archive/nord-terminal-app_Nord.terminal")
        XCTAssertEqual(try compareAfter(["set", ".name", #""Nord 2""#], file: theme), #".$propertyList.name: "Nord" ≠ "Nord 2""# + "\n")
        let result = scratch.appendingPathComponent("theme.terminal")
        XCTAssertEqual(try tool(["remove", theme.path, ".name", "-o", result.path]).status, 0)
        XCTAssertTrue(String(decoding: try Data(contentsOf: result), as: UTF8.self).hasPrefix("<?xml"))
        // Inside a nested payload, written back as a keyed archive in the data value. The
        // components' `$space` label said the old space: an edit leaves it out, the next
        // decode says the new one.
        XCTAssertEqual(
            try compareAfter(["set", ".ANSIBlackColor.NSColorSpace", "2"], file: theme, nested: true),
            ".$propertyList.ANSIBlackColor.$data.$keyedArchive.NSColorSpace: 1 ≠ 2\n")
        XCTAssertEqual(try tool(["set", "--nested", theme.path, ".ANSIBlackColor.NSColorSpace", "2", "-o", result.path]).status, 0)
        XCTAssertEqual(try tool(["get", "--nested", result.path, ".ANSIBlackColor.NSRGB.$bytes.$space"]).stdout, #""deviceRGB""# + "\n")
        // A label the edit writes is checked.
        let wrong = try tool(["set", "--nested", theme.path, ".ANSIBlackColor.NSRGB.$bytes.$space", #""deviceRGB""#, "-o", result.path])
        XCTAssertEqual(wrong.status, 2, wrong.stderr)
        XCTAssertTrue(wrong.stderr.contains(#"$space "deviceRGB" does not match the colour: its NSRGB is in "calibratedRGB""#), wrong.stderr)
    }

    func testTypedStream() throws {
        let stream = Fixtures.directory.appendingPathComponent("public/typedstream/imessage-exporter_attributedBody-AttributedBodyTextOnly2.bin")
        XCTAssertEqual(
            try compareAfter(["set", #".[0]["@"].$string"#, #""Test 4""#], file: stream), ".$typedstream[0].@.$string: \"Test 3\" ≠ \"Test 4\"\n")
        let result = scratch.appendingPathComponent("stream.bin")
        XCTAssertEqual(try tool(["set", stream.path, #".[0]["@"].$string"#, #""Test 4""#, "-o", result.path]).status, 0)
        XCTAssertEqual(InputKind(of: Array(try Data(contentsOf: result))), .typedStream)
    }

    /// Each refusal is one line on stderr with exit 2 (64 for a malformed path), and no output.
    /// `get` writes on a thread with the stack its depth check assumes: a chain of 60,000
    /// nested arrays (within the default 512 MiB stack) is read, not a crash of the main
    /// thread's 8 MiB.
    func testGetReadsADeepArchive() throws {
        let depth = 60_000
        let json = #"{"$top":{"root":"# + String(repeating: "[", count: depth) + "1" + String(repeating: "]", count: depth) + "}}"
        let archive = scratch.appendingPathComponent("deep.plist")
        try Data(try JSONDocument(parsing: Array(json.utf8)).archive(format: .binary)).write(to: archive)
        for words in [["get", archive.path, "[0][0]"], ["get", "--nested", archive.path, "[0][0]"]] {
            let result = try tool(words)
            XCTAssertEqual(result.status, 0, "\(words) \(result.stderr)")
            XCTAssertTrue(result.stdout.hasPrefix("[[[[") && result.stdout.hasSuffix("1" + String(repeating: "]", count: depth - 2) + "\n"), "\(words)")
        }
    }

    func testRefusals() throws {
        let archive = Fixtures.directory.appendingPathComponent("apple/scl-NSKeyedUnarchiver-ComplexTest.plist")
        let result = scratch.appendingPathComponent("never.plist")
        let cases: [([String], Int32, String)] = [
            (["set", archive.path, ".nothing.here", "1"], 2, "no value at .nothing:"),
            (["set", archive.path, ".string", "not json"], 2, "not JSON"),
            (["insert", archive.path, ".string", "1"], 2, "there already"),
            (["remove", archive.path, "."], 2, "not the whole document"),
            (["set", archive.path, "string", "1"], 64, "a path reads like"),
            (["set", archive.path, ".array[0]", #"{"$class":"NSNull","$unknown":1}"#], 2, "$unknown")
        ]
        for (arguments, status, message) in cases {
            let run = try tool(arguments + ["-o", result.path])
            XCTAssertEqual(run.status, status, "\(arguments): \(run.stderr)")
            XCTAssertTrue(run.stderr.contains(message), "\(arguments): \(run.stderr)")
            XCTAssertFalse(FileManager.default.fileExists(atPath: result.path), "\(arguments)")
        }
    }
}
