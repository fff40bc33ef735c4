import ArchiveCodec
import Foundation
import TestSupport
import XCTest

/// More files than the argument parser is given (`LongFileLists`): the options before, between
/// and after the files still apply, every file is converted in the order given, and the
/// checks of the options against the whole list still refuse what they refuse.
final class LongFileListsTests: XCTestCase {
    private var scratch: URL!
    /// More than `LongFileLists.threshold` (64) copies of a real archive.
    private var files: [String] = []

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("archive-tool-long-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
        let archive = try Data(contentsOf: Fixtures.directory.appendingPathComponent("apple/scl-NSKeyedUnarchiver-ComplexTest.plist"))
        files = try (0..<70).map { index in
            let url = scratch.appendingPathComponent("in-\(index).plist")
            try archive.write(to: url)
            return url.path
        }
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
    }

    private func tool(_ arguments: [String]) throws -> (status: Int32, stdout: String, stderr: String) {
        let out = scratch.appendingPathComponent("stdout-\(UUID().uuidString)")
        let (status, stderr) = try ToolRun.run(arguments, stdout: out)
        return (status, String(decoding: (try? Data(contentsOf: out)) ?? Data(), as: UTF8.self), stderr)
    }

    /// The options that take a value, as each command's help lists them: those the split
    /// must know (the word after them is not a file). A new one fails this test until
    /// `LongFileLists` knows it and a case below uses it.
    func testEveryOptionWithAValueIsKnown() throws {
        let expected = [
            "decode": ["--jobs", "--max-depth", "--output", "--output-dir", "--stack-mib"],
            "encode": ["--jobs", "--output", "--output-dir"],
            "summary": ["--stack-mib"],
            // Their files are read as bytes too (`CommandLineFiles`).
            "get": ["--output", "--stack-mib"], "set": ["--output", "--stack-mib"], "insert": ["--output", "--stack-mib"],
            "remove": ["--output", "--stack-mib"], "compare": [], "depth": []
        ]
        for (command, options) in expected {
            let help = try tool([command, "--help"]).stdout
            let pattern = try NSRegularExpression(pattern: #"(--[a-z-]+) <"#)
            let found = pattern.matches(in: help, range: NSRange(help.startIndex..., in: help)).map { String(help[Range($0.range(at: 1), in: help)!]) }
            XCTAssertEqual(Swift.Set(found).sorted(), options, command)
        }
    }

    func testOptionsAroundManyFiles() throws {
        let half = files.count / 2
        let lines = try tool(["decode", "--jobs", "2"] + files[..<half] + ["--max-depth", "64", "--stack-mib", "64"] + files[half...] + ["--ndjson"])
        XCTAssertEqual(lines.status, 0, lines.stderr)
        let names = lines.stdout.split(separator: "\n").compactMap { line in
            (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["file"] as? String
        }
        XCTAssertEqual(names, files)
        // After `--`, a name that begins with `-` is a file too.
        let dashed = scratch.appendingPathComponent("-dashed.plist").path
        try FileManager.default.copyItem(atPath: files[0], toPath: dashed)
        let afterTerminator = try tool(["decode", "--ndjson", "--"] + files + [dashed])
        XCTAssertEqual(afterTerminator.stdout.split(separator: "\n").count, files.count + 1, afterTerminator.stderr)

        let json = scratch.appendingPathComponent("json").path
        let decoded = try tool(["decode", "--output-dir", json] + files)
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        let jsonFiles = files.map { json + "/" + URL(fileURLWithPath: $0).lastPathComponent + ".json" }
        let back = scratch.appendingPathComponent("back").path
        let encoded = try tool(["encode", "--jobs", "1", "--output-dir", back] + jsonFiles)
        XCTAssertEqual(encoded.status, 0, encoded.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: back).count, files.count)

        let summary = try tool(["summary", "--json", "--stack-mib", "64"] + files)
        XCTAssertEqual(summary.status, 0, summary.stderr)
        XCTAssertTrue(summary.stdout.hasPrefix(#"{"format":"keyedArchive","files":70,"#), summary.stdout)
    }

    /// What the parser checks against the files is checked against all of them.
    func testRefusalsSeeTheWholeList() throws {
        let one = try tool(["decode", "-o", scratch.appendingPathComponent("out.json").path] + files)
        XCTAssertEqual(one.status, 64, one.stderr)
        XCTAssertTrue(one.stderr.contains("several files are converted into a folder"), one.stderr)
        let several = try tool(["decode", "--output", scratch.appendingPathComponent("out.json").path] + files)
        XCTAssertEqual(several.status, 64, several.stderr)
        let unknown = try tool(["decode", "--no-such-option"] + files)
        XCTAssertEqual(unknown.status, 64, unknown.stderr)
        let missing = try tool(["decode", "--ndjson"] + files + ["--jobs"])
        XCTAssertEqual(missing.status, 64, missing.stderr)
    }
}
