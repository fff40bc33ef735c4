import ArchiveCodec
import Foundation
import TestSupport
import XCTest

/// `decode` and `encode` over many files (`--output-dir`): each file converted alone, failures
/// said one line each and the run carried on, nothing half-written, names kept apart, the
/// exit status, and the forms that read one file (`-o`, stdin).
final class BatchTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("archive-tool-batch-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
    }

    private var apple: URL { Fixtures.directory.appendingPathComponent("apple") }

    /// A folder of real archives (some in a subfolder), a broken plist, a file that is no
    /// plist, an empty file and a hidden file: the good ones converted, each bad one a line.
    private func mixedFolder() throws -> (folder: URL, good: [String], bad: [String]) {
        let folder = scratch.appendingPathComponent("in")
        let inner = folder.appendingPathComponent("inner/deeper")
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
        let names = try FileManager.default.contentsOfDirectory(atPath: apple.path).filter { $0.hasSuffix(".plist") || $0.hasSuffix(".bin") }.sorted().prefix(6)
        var good: [String] = []
        for (index, name) in names.enumerated() where !name.contains("dtx") {
            let relative = index % 2 == 0 ? name : "inner/deeper/" + name
            try FileManager.default.copyItem(at: apple.appendingPathComponent(name), to: folder.appendingPathComponent(relative))
            good.append(relative)
        }
        try Data("bplist00 broken".utf8).write(to: folder.appendingPathComponent("broken.plist"))
        try Data("just some text\n".utf8).write(to: folder.appendingPathComponent("inner/notes.txt"))
        try Data().write(to: folder.appendingPathComponent("empty.plist"))
        try Data("ignored".utf8).write(to: folder.appendingPathComponent(".DS_Store"))
        return (folder, good, ["broken.plist", "inner/notes.txt", "empty.plist"])
    }

    private func files(under folder: URL) -> [String] {
        let enumerator = FileManager.default.enumerator(atPath: folder.path)
        var found: [String] = []
        while let path = enumerator?.nextObject() as? String {
            var isFolder: ObjCBool = false
            if FileManager.default.fileExists(atPath: folder.appendingPathComponent(path).path, isDirectory: &isFolder), !isFolder.boolValue { found.append(path) }
        }
        return found.sorted()
    }

    func testDecodeCarriesOnPastBadFilesAndWritesTheGoodOnesWhole() throws {
        let (folder, good, bad) = try mixedFolder()
        let out = scratch.appendingPathComponent("out")
        let result = try ToolRun.run(["decode", "--output-dir", out.path, "--recursive", "--jobs", "3", folder.path], stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(result.status, 1, result.stderr)
        // The good files, each as the single-file decode writes it; nothing for the bad ones,
        // no temporary file left, the hidden file not taken.
        XCTAssertEqual(files(under: out), good.map { $0 + ".json" }.sorted())
        for name in good {
            let single = scratch.appendingPathComponent("single-\(UUID().uuidString)")
            XCTAssertEqual(try ToolRun.run(["decode", folder.appendingPathComponent(name).path], stdout: single).status, 0)
            XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent(name + ".json")), try Data(contentsOf: single), name)
        }
        // One line per bad file, beginning with its path; then the closing line.
        let lines = result.stderr.split(separator: "\n").map(String.init)
        for name in bad {
            let path = folder.appendingPathComponent(name).path
            XCTAssertEqual(lines.filter { $0.hasPrefix(path + ": ") }.count, 1, "\(name): \(result.stderr)")
        }
        XCTAssertEqual(lines.count, bad.count + 1, result.stderr)
        XCTAssertTrue(lines.last!.hasPrefix("archive-tool: decoded \(good.count) of \(good.count + bad.count) files into \(out.path), \(bad.count) failed"), lines.last!)
        XCTAssertEqual(try Data(contentsOf: scratch.appendingPathComponent("stdout")), Data(), "nothing on stdout")
    }

    /// A second run into the same folder replaces each output whole (an output is named only
    /// once written: unnamed, then linked in, or renamed over the old one); an output whose
    /// name a folder holds fails alone; no temporary file is left either way.
    func testARunOverEarlierOutputsReplacesThemWhole() throws {
        let (folder, good, _) = try mixedFolder()
        let out = scratch.appendingPathComponent("out")
        _ = try ToolRun.run(["decode", "--output-dir", out.path, "--recursive", folder.path], stdout: scratch.appendingPathComponent("stdout"))
        let first = try good.map { try Data(contentsOf: out.appendingPathComponent($0 + ".json")) }
        try Data("stale".utf8).write(to: out.appendingPathComponent(good[0] + ".json"))
        try FileManager.default.removeItem(at: out.appendingPathComponent(good[1] + ".json"))
        try FileManager.default.removeItem(at: out.appendingPathComponent(good[2] + ".json"))
        try FileManager.default.createDirectory(at: out.appendingPathComponent(good[2] + ".json"), withIntermediateDirectories: false)
        let result = try ToolRun.run(["decode", "--output-dir", out.path, "--recursive", folder.path], stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(result.status, 1, result.stderr)
        let blocked = folder.appendingPathComponent(good[2]).path
        XCTAssertEqual(result.stderr.split(separator: "\n").filter { $0.hasPrefix(blocked + ": cannot write ") }.count, 1, result.stderr)
        for (index, name) in good.enumerated() where index != 2 {
            XCTAssertEqual(try Data(contentsOf: out.appendingPathComponent(name + ".json")), first[index], name)
        }
        XCTAssertEqual(files(under: out), good.enumerated().filter { $0.offset != 2 }.map { $0.element + ".json" }.sorted())
    }

    func testEncodeBackGivesTheSameGraphsUnderTheOriginalNames() throws {
        let (folder, good, _) = try mixedFolder()
        let json = scratch.appendingPathComponent("json")
        _ = try ToolRun.run(["decode", "--output-dir", json.path, "--recursive", folder.path], stdout: scratch.appendingPathComponent("stdout"))
        let back = scratch.appendingPathComponent("back")
        let result = try ToolRun.run(["encode", "--output-dir", back.path, "--recursive", json.path], stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(files(under: back), good.sorted())
        for name in good {
            let original = try Archive(parsing: Array(Data(contentsOf: folder.appendingPathComponent(name))))
            let copy = try Archive(parsing: Array(Data(contentsOf: back.appendingPathComponent(name))))
            XCTAssertNil(copy.difference(from: original), name)
        }
        // A document named without the archive's own extension gains .plist.
        let plain = scratch.appendingPathComponent("plain")
        try FileManager.default.createDirectory(at: plain, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: json.appendingPathComponent(good[0] + ".json"), to: plain.appendingPathComponent("game.json"))
        let named = scratch.appendingPathComponent("named")
        XCTAssertEqual(try ToolRun.run(["encode", "--output-dir", named.path, plain.appendingPathComponent("game.json").path], stdout: scratch.appendingPathComponent("stdout")).status, 0)
        XCTAssertEqual(files(under: named), ["game.plist"])
    }

    /// The same outputs with one job and with several: a batch's names and bytes do not depend
    /// on how its jobs interleave.
    func testJobsDoNotChangeTheOutputs() throws {
        let (folder, _, _) = try mixedFolder()
        var outputs: [[String: Data]] = []
        for jobs in ["1", "4"] {
            let out = scratch.appendingPathComponent("out-\(jobs)")
            _ = try ToolRun.run(["decode", "--output-dir", out.path, "--recursive", "--jobs", jobs, folder.path], stdout: scratch.appendingPathComponent("stdout"))
            var contents: [String: Data] = [:]
            for name in files(under: out) { contents[name] = try Data(contentsOf: out.appendingPathComponent(name)) }
            outputs.append(contents)
        }
        XCTAssertEqual(outputs[0], outputs[1])
        XCTAssertFalse(outputs[0].isEmpty)
    }

    /// Two inputs of one name: the second is numbered, and the renaming said.
    func testInputsOfOneNameAreToldApart() throws {
        let name = "scl-NSKeyedUnarchiver-OrderedSetTest.plist"
        let first = scratch.appendingPathComponent("a")
        let second = scratch.appendingPathComponent("b")
        for folder in [first, second] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try FileManager.default.copyItem(at: apple.appendingPathComponent(name), to: folder.appendingPathComponent(name))
        }
        let out = scratch.appendingPathComponent("out")
        let result = try ToolRun.run(
            ["decode", "--output-dir", out.path, first.appendingPathComponent(name).path, second.appendingPathComponent(name).path],
            stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(result.status, 0, result.stderr)
        XCTAssertEqual(files(under: out), ["scl-NSKeyedUnarchiver-OrderedSetTest.plist-2.json", "scl-NSKeyedUnarchiver-OrderedSetTest.plist.json"])
        XCTAssertTrue(result.stderr.contains("\(second.appendingPathComponent(name).path) → \(out.path)/\(name)-2.json"), result.stderr)
    }

    /// A failure is one line even when the file's name or the input the message quotes holds a
    /// line break or an escape sequence: those are written escaped.
    func testAFailureIsOneLineWhateverTheNameHolds() throws {
        let folder = scratch.appendingPathComponent("odd")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let name = "bad\nname\u{1B}[2J.plist"
        try Data("<?xml version=\"1.0\"?>\n<plist><dict><key>\u{1B}]0;x\n</key></plist>".utf8).write(to: folder.appendingPathComponent(name))
        let out = scratch.appendingPathComponent("out")
        let result = try ToolRun.run(["decode", "--output-dir", out.path, "--recursive", folder.path], stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(result.status, 1, result.stderr)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, 2, result.stderr)
        XCTAssertTrue(lines[0].hasPrefix(folder.path + "/bad\\nname\\u{1B}[2J.plist: "), result.stderr)
        XCTAssertFalse(result.stderr.unicodeScalars.contains("\u{1B}"), result.stderr)
    }

    func testWrongCommandLinesAreUsageErrors() throws {
        let archive = apple.appendingPathComponent("scl-NSKeyedUnarchiver-OrderedSetTest.plist").path
        let out = scratch.appendingPathComponent("out").path
        let wrong: [[String]] = [
            ["decode", archive, archive],
            ["encode", archive, archive],
            ["decode", "--output-dir", out, "-"],
            ["decode", "--output-dir", out, "-o", "x.json", archive],
            ["decode", "--recursive", archive],
            ["decode", "--jobs", "2", archive],
            ["decode", "--output-dir", out, "--jobs", "0", archive],
            ["decode", "--ndjson", "--pretty", archive],
            ["decode", "--ndjson", "--output-dir", out, archive],
            ["decode", "--ndjson", "-"]
        ]
        for arguments in wrong {
            XCTAssertEqual(try ToolRun.run(arguments, stdout: scratch.appendingPathComponent("stdout")).status, 64, "\(arguments)")
        }
        // A folder without --recursive is a failure of the run, not of the command line.
        let folder = try ToolRun.run(["decode", "--output-dir", out, apple.path], stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(folder.status, 1)
        XCTAssertTrue(folder.stderr.hasPrefix("\(apple.path): a folder: add --recursive"), folder.stderr)
    }

    /// `--ndjson`: a line per file in the order given, whatever the jobs; a document as the single
    /// decode writes it, a failure as the problem document the service sends.
    func testLinesComeInTheOrderGiven() throws {
        let (folder, good, bad) = try mixedFolder()
        let missing = scratch.appendingPathComponent("missing").path
        var paths = (good + bad).map { folder.appendingPathComponent($0).path }
        paths = (0..<5).flatMap { _ in paths } + [missing]
        let out = scratch.appendingPathComponent("lines.ndjson")
        let result = try ToolRun.run(["decode", "--ndjson", "--jobs", "3"] + paths, stdout: out)
        XCTAssertEqual(result.status, 1, result.stderr)
        let lines = try Data(contentsOf: out).split(separator: UInt8(ascii: "\n"))
        XCTAssertEqual(lines.count, paths.count)
        var singles: [String: Any] = [:]
        for (path, line) in zip(paths, lines) {
            let object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line), options: [.fragmentsAllowed]) as? [String: Any])
            XCTAssertEqual(object["file"] as? String, path)
            if let error = object["error"] as? [String: Any] {
                let type = try XCTUnwrap(error["type"] as? String)
                XCTAssertTrue(path == missing ? type.hasSuffix(":unreadable-file") : type.hasSuffix(":malformed-plist"), "\(path): \(type)")
                XCTAssertTrue(bad.contains { path.hasSuffix($0) } || path == missing, path)
                continue
            }
            XCTAssertTrue(good.contains { path.hasSuffix($0) }, path)
            if singles[path] == nil {
                let single = scratch.appendingPathComponent("single-\(singles.count)")
                XCTAssertEqual(try ToolRun.run(["decode", path], stdout: single).status, 0)
                singles[path] = try JSONSerialization.jsonObject(with: Data(contentsOf: single), options: [.fragmentsAllowed])
            }
            XCTAssertEqual(object["document"] as? NSObject, singles[path] as? NSObject, path)
        }
    }

    /// `summary` over several files carries on past one it cannot read or summarise: a line on
    /// stderr beginning with its path, the others merged, exit 1.
    func testSummaryOfSeveralCarriesOnPastBadFiles() throws {
        let (folder, good, bad) = try mixedFolder()
        let paths = (good + bad).sorted().map { folder.appendingPathComponent($0).path } + [scratch.appendingPathComponent("missing").path]
        let out = scratch.appendingPathComponent("summary.json")
        let result = try ToolRun.run(["summary", "--json"] + paths, stdout: out)
        XCTAssertEqual(result.status, 1, result.stderr)
        let lines = result.stderr.split(separator: "\n")
        XCTAssertEqual(lines.count, bad.count + 1, result.stderr)
        for name in bad { XCTAssertEqual(lines.filter { $0.hasPrefix(folder.appendingPathComponent(name).path + ": ") }.count, 1, name) }
        let goodOnly = scratch.appendingPathComponent("good.json")
        XCTAssertEqual(try ToolRun.run(["summary", "--json"] + good.sorted().map { folder.appendingPathComponent($0).path }, stdout: goodOnly).status, 0)
        XCTAssertEqual(try Data(contentsOf: out), try Data(contentsOf: goodOnly))
    }

    /// `get`: the value at a path, through wrappers and references; `--raw` strings; a path that
    /// leads nowhere exits 2 saying how far it got; a malformed path is a usage error.
    func testGetReadsOneValue() throws {
        let archive = apple.appendingPathComponent("goios_arrays.bin").path
        let cases: [([String], Int32, String)] = [
            (["get", archive, #"."$1"[1]"#], 0, "\"Hello, World!\"\n"),
            (["get", "--raw", archive, #"."$1"[1]"#], 0, "Hello, World!\n"),
            (["get", archive, #"."$3"[0]"#], 0, "42\n"),
            (["get", "--bytes", archive, #"."$0"[4]"#], 0, "asdfasdfadsfadsf"),
            (["get", "--bytes", archive, #"."$0"[0]"#], 2, ""),
            (["get", archive, ".nothing"], 2, ""),
            (["get", archive, "nothing"], 64, ""),
            (["get", "--plain", archive, #"."$1""#], 0, "[true,\"Hello, World!\",42]\n"),
            (["get", "--plain", archive, ".nothing"], 2, ""),
            (["get", "--plain", "--bytes", archive, "."], 64, "")
        ]
        for (index, (arguments, status, output)) in cases.enumerated() {
            let out = scratch.appendingPathComponent("get-\(index)")
            let result = try ToolRun.run(arguments, stdout: out)
            XCTAssertEqual(result.status, status, "\(arguments): \(result.stderr)")
            XCTAssertEqual(String(decoding: try Data(contentsOf: out), as: UTF8.self), output, "\(arguments)")
        }
        let whole = scratch.appendingPathComponent("whole")
        let decoded = scratch.appendingPathComponent("decoded")
        XCTAssertEqual(try ToolRun.run(["get", archive, "."], stdout: whole).status, 0)
        XCTAssertEqual(try ToolRun.run(["decode", archive], stdout: decoded).status, 0)
        XCTAssertEqual(try Data(contentsOf: whole), try Data(contentsOf: decoded))
        // `--plain` at `.` is the document's plain view.
        XCTAssertEqual(try ToolRun.run(["get", "--plain", archive, "."], stdout: whole).status, 0)
        XCTAssertEqual(try ToolRun.run(["decode", "--plain", archive], stdout: decoded).status, 0)
        XCTAssertEqual(try Data(contentsOf: whole), try Data(contentsOf: decoded))
        let file = scratch.appendingPathComponent("bytes.bin")
        XCTAssertEqual(try ToolRun.run(["get", "--bytes", archive, #"."$0"[4]"#, "-o", file.path], stdout: scratch.appendingPathComponent("stdout")).status, 0)
        XCTAssertEqual(try Data(contentsOf: file), Data("asdfasdfadsfadsf".utf8))
    }

    /// With no file, stdin is read; `-o` writes the file stdout would have held.
    func testStdinAndOutputFile() throws {
        let archive = apple.appendingPathComponent("scl-NSKeyedUnarchiver-OrderedSetTest.plist")
        let expected = scratch.appendingPathComponent("expected.json")
        XCTAssertEqual(try ToolRun.run(["decode", archive.path], stdout: expected).status, 0)
        let input = try FileHandle(forReadingFrom: archive)
        defer { try? input.close() }
        let piped = scratch.appendingPathComponent("piped.json")
        XCTAssertEqual(try ToolRun.run(["decode"], stdout: piped, stdin: input).status, 0)
        XCTAssertEqual(try Data(contentsOf: piped), try Data(contentsOf: expected))
        let named = scratch.appendingPathComponent("named.json")
        XCTAssertEqual(try ToolRun.run(["decode", "--pretty", archive.path, "-o", named.path], stdout: scratch.appendingPathComponent("stdout")).status, 0)
        let pretty = scratch.appendingPathComponent("pretty.json")
        XCTAssertEqual(try ToolRun.run(["decode", "--pretty", archive.path], stdout: pretty).status, 0)
        XCTAssertEqual(try Data(contentsOf: named), try Data(contentsOf: pretty))
    }
}
