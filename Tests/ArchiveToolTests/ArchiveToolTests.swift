import ArchiveCodec
import Foundation
import TestSupport
import XCTest

/// The `archive-tool` executable: files in, stdout out, exit codes, and what is left in a
/// redirected stdout when a streamed conversion is refused part way.
final class ArchiveToolTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("archive-tool-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
    }

    private func run(_ arguments: [String], stdout output: URL, stdin input: FileHandle? = nil) throws -> (status: Int32, stderr: String) {
        try ToolRun.run(arguments, stdout: output, stdin: input)
    }

    /// The first Apple fixture archive by name (not one of the `dtx` frames).
    private func firstAppleArchive() throws -> URL {
        let fixtures = Fixtures.directory.appendingPathComponent("apple")
        let name = try XCTUnwrap(try FileManager.default.contentsOfDirectory(atPath: fixtures.path).sorted().first { $0.hasSuffix(".plist") && !$0.contains("dtx") })
        return fixtures.appendingPathComponent(name)
    }

    /// A JSON array of `count` distinct strings (about 40 bytes each), then `tail`.
    private func bigDocument(count: Int, tail: String) throws -> URL {
        var text = "["
        text.reserveCapacity(count * 44)
        for index in 0..<count { text += "\"entry \(index) of a document streamed out\"," }
        text += tail + "]"
        let url = scratch.appendingPathComponent("big-\(count).json")
        try Data(text.utf8).write(to: url)
        return url
    }

    /// An archive large enough for both cores (validation in halves, two writers): the
    /// tool's text is the codec's one-writer text.
    func testDecodeOnTwoCoresWritesTheOneWriterText() throws {
        let source = try bigDocument(count: 140_000, tail: "{\"$class\":\"Thing\",\"$id\":9,\"me\":{\"$ref\":9}}")
        let archive = scratch.appendingPathComponent("big.bin")
        XCTAssertEqual(try run(["encode", source.path], stdout: archive).status, 0)
        let decoded = scratch.appendingPathComponent("big.out.json")
        let result = try run(["decode", archive.path], stdout: decoded)
        XCTAssertEqual(result.status, 0, result.stderr)
        let expected = try KeyedArchive(parsing: Array(Data(contentsOf: archive))).json(view: .readable, pretty: false)
        XCTAssertEqual(Array(try Data(contentsOf: decoded)), expected + [0x0A])
    }

    /// A file of 4 MiB or more is read as two halves at once (one split at a page boundary,
    /// the other half not a whole number of pages), also as stdin already read in part: the
    /// tool must see the bytes from where it stands. (Under 8 MiB, encode's output is the
    /// in-memory archive.)
    func testLargeFileReadInHalvesIsReadWhole() throws {
        let source = try bigDocument(count: 120_001, tail: "\"odd\"")
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: source.path)[.size] as? Int)
        XCTAssertTrue((4 << 20..<8 << 20).contains(size) && size % 4096 != 0, "\(size)")
        let archive = scratch.appendingPathComponent("halves.bin")
        let result = try run(["encode", source.path], stdout: archive)
        XCTAssertEqual(result.status, 0, result.stderr)
        let expected = try JSONDocument(parsing: Array(Data(contentsOf: source))).archive(format: .binary)
        XCTAssertEqual(Array(try Data(contentsOf: archive)), expected)
        // Stdin that is a file already partly read: reading starts where it stands.
        let prefixed = scratch.appendingPathComponent("prefixed.json")
        try (Data(repeating: UInt8(ascii: "}"), count: 1_000) + Data(contentsOf: source)).write(to: prefixed)
        let input = try FileHandle(forReadingFrom: prefixed)
        defer { try? input.close() }
        try input.seek(toOffset: 1_000)
        let fromStdin = scratch.appendingPathComponent("halves-stdin.bin")
        let piped = try run(["encode", "-"], stdout: fromStdin, stdin: input)
        XCTAssertEqual(piped.status, 0, piped.stderr)
        XCTAssertEqual(Array(try Data(contentsOf: fromStdin)), expected)
    }

    /// `decode FILE` (with the flags `PlainInvocation` takes) and `encode FILE` skip the argument
    /// parser: output, errors and exit codes must be those of the same commands through the
    /// parser (an option it does not take, or `--`, sends them there).
    func testPlainFormsMatchTheParsedForms() throws {
        let archive = try firstAppleArchive().path
        let broken = scratch.appendingPathComponent("broken.json")
        try Data(#"{"a":[1,"#.utf8).write(to: broken)
        let missing = scratch.appendingPathComponent("missing").path
        let pairs: [([String], [String])] = [
            (["decode", archive], ["decode", "--stack-mib", "512", archive]),
            (["decode", "--nested", archive], ["decode", "--stack-mib", "512", "--nested", archive]),
            (["decode", archive, "--raw", "--pretty"], ["decode", "--stack-mib", "512", "--raw", "--pretty", archive]),
            (["decode", "--exact-numbers", "--exact-integers", archive], ["decode", "--stack-mib", "512", "--exact-integers", "--exact-numbers", archive]),
            (["decode", "--raw", "--nested", archive], ["decode", "--stack-mib", "512", "--raw", "--nested", archive]),
            (["decode", "--plain", archive], ["decode", "--stack-mib", "512", "--plain", archive]),
            (["decode", archive, "--nested", "--plain", "--pretty"], ["decode", "--stack-mib", "512", "--pretty", "--plain", "--nested", archive]),
            (["decode", "--plain", "--raw", archive], ["decode", "--stack-mib", "512", "--raw", "--plain", archive]),
            (["decode", "--plain", "--exact-integers", archive], ["decode", "--stack-mib", "512", "--exact-integers", "--plain", archive]),
            (["decode", "--plain", broken.path], ["decode", "--plain", "--", broken.path]),
            (["decode", "--pretty", broken.path], ["decode", "--pretty", "--", broken.path]),
            (["decode", missing], ["decode", "--", missing]),
            (["decode", broken.path], ["decode", "--", broken.path]),
            (["encode", broken.path], ["encode", "--", broken.path]),
            (["encode", missing], ["encode", "--", missing])
        ]
        for (index, (plain, parsed)) in pairs.enumerated() {
            let plainOut = scratch.appendingPathComponent("plain-\(index)")
            let parsedOut = scratch.appendingPathComponent("parsed-\(index)")
            let plainRun = try run(plain, stdout: plainOut)
            let parsedRun = try run(parsed, stdout: parsedOut)
            XCTAssertEqual(plainRun.status, parsedRun.status, "\(plain)")
            XCTAssertEqual(plainRun.stderr, parsedRun.stderr, "\(plain)")
            XCTAssertEqual(try Data(contentsOf: plainOut), try Data(contentsOf: parsedOut), "\(plain)")
        }
        let json = scratch.appendingPathComponent("fixture.json")
        XCTAssertEqual(try run(["decode", archive], stdout: json).status, 0)
        let plainArchive = scratch.appendingPathComponent("plain.bin")
        XCTAssertEqual(try run(["encode", json.path], stdout: plainArchive).status, 0)
        let parsedArchive = scratch.appendingPathComponent("parsed.bin")
        XCTAssertEqual(try run(["encode", "--", json.path], stdout: parsedArchive).status, 0)
        XCTAssertEqual(try Data(contentsOf: plainArchive), try Data(contentsOf: parsedArchive))
        // `encode FILE -o OUT` and `decode FILE -o OUT` skip the parser too: the same file,
        // errors and exit codes.
        let outputs: [([String], [String])] = [
            (["encode", json.path, "-o"], ["encode", "--force", json.path, "-o"]),
            (["encode", json.path, "--output"], ["encode", "--force", json.path, "--output"]),
            (["encode", broken.path, "-o"], ["encode", broken.path, "--force", "-o"]),
            (["encode", missing, "-o"], ["encode", missing, "--force", "-o"]),
            (["decode", archive, "-o"], ["decode", "--stack-mib", "512", archive, "-o"]),
            (["decode", broken.path, "--output"], ["decode", broken.path, "--stack-mib", "512", "--output"]),
            (["decode", missing, "-o"], ["decode", missing, "--stack-mib", "512", "-o"])
        ]
        for (index, (plain, parsed)) in outputs.enumerated() {
            let plainFile = scratch.appendingPathComponent("plain-o-\(index)").path
            let parsedFile = scratch.appendingPathComponent("parsed-o-\(index)").path
            let plainRun = try run(plain + [plainFile], stdout: scratch.appendingPathComponent("plain-o-stdout"))
            let parsedRun = try run(parsed + [parsedFile], stdout: scratch.appendingPathComponent("parsed-o-stdout"))
            XCTAssertEqual(plainRun.status, parsedRun.status, "\(plain)")
            XCTAssertEqual(plainRun.stderr, parsedRun.stderr, "\(plain)")
            // A refused conversion leaves no file (it is renamed into place only when whole).
            XCTAssertEqual(try? Data(contentsOf: URL(fileURLWithPath: plainFile)), try? Data(contentsOf: URL(fileURLWithPath: parsedFile)), "\(plain)")
        }
        // `-oFILE`, one word (as `cc -oFILE`): the same file as `-o FILE`, for every command
        // that writes one.
        let edited = scratch.appendingPathComponent("edited.plist")
        try Data(#"<?xml version="1.0" encoding="UTF-8"?><plist version="1.0"><dict><key>a</key><integer>1</integer></dict></plist>"#.utf8).write(to: edited)
        let joinedForms: [[String]] = [
            ["decode", archive], ["decode", "--pretty", archive], ["encode", json.path], ["get", archive, "."], ["set", edited.path, ".a", "2"]
        ]
        for (index, words) in joinedForms.enumerated() {
            let spacedFile = scratch.appendingPathComponent("spaced-\(index)").path
            let joinedFile = scratch.appendingPathComponent("joined-\(index)").path
            let spaced = try run(words + ["-o", spacedFile], stdout: scratch.appendingPathComponent("spaced-stdout"))
            let joined = try run(words + ["-o" + joinedFile], stdout: scratch.appendingPathComponent("joined-stdout"))
            XCTAssertEqual(spaced.status, 0, "\(words) \(spaced.stderr)")
            XCTAssertEqual(joined.status, 0, "\(words) \(joined.stderr)")
            XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: joinedFile)), try Data(contentsOf: URL(fileURLWithPath: spacedFile)), "\(words)")
        }
    }

    /// `-o FILE` is written beside FILE and renamed over it once the command has written it
    /// all: a refused conversion leaves an existing FILE as it was (not emptied), a finished
    /// one replaces it keeping its mode; no temporary file is left either way; a link is
    /// written through and a device written in place.
    func testARefusedConversionLeavesTheOutputFileAsItWas() throws {
        let folder = scratch.appendingPathComponent("out-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let file = folder.appendingPathComponent("kept.plist")
        try Data("earlier content\n".utf8).write(to: file)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        let broken = folder.appendingPathComponent("broken.json")
        try Data(#"{"$ref":"nowhere"}"#.utf8).write(to: broken)
        let archive = try firstAppleArchive().path
        let stdout = scratch.appendingPathComponent("stdout")
        for words in [["encode", broken.path, "-o", file.path], ["decode", broken.path, "-o", file.path], ["decode", "--pretty", broken.path, "-o", file.path]] {
            XCTAssertNotEqual(try run(words, stdout: stdout).status, 0, "\(words)")
            XCTAssertEqual(String(decoding: try Data(contentsOf: file), as: UTF8.self), "earlier content\n", "\(words)")
        }
        XCTAssertEqual(try run(["decode", archive], stdout: stdout).status, 0)
        let decoded = try Data(contentsOf: stdout)
        XCTAssertEqual(try run(["decode", archive, "-o", file.path], stdout: stdout).status, 0)
        XCTAssertEqual(try Data(contentsOf: file), decoded)
        XCTAssertEqual((try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? NSNumber)?.intValue, 0o600)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted(), ["broken.json", "kept.plist"])
        // A link is written through, a device in place.
        let target = folder.appendingPathComponent("target.json")
        let link = folder.appendingPathComponent("link.json")
        try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
        XCTAssertEqual(try run(["decode", archive, "-o", link.path], stdout: stdout).status, 0)
        XCTAssertEqual(try FileManager.default.destinationOfSymbolicLink(atPath: link.path), target.path)
        XCTAssertEqual(try Data(contentsOf: target), decoded)
        XCTAssertEqual(try run(["decode", archive, "-o", "/dev/null"], stdout: stdout).status, 0)
    }

    func testDecodeThenEncodeRoundTripsAFixture() throws {
        let fixture = try firstAppleArchive()
        let json = scratch.appendingPathComponent("fixture.json")
        let copy = scratch.appendingPathComponent("fixture.plist")
        XCTAssertEqual(try run(["decode", fixture.path], stdout: json).status, 0)
        XCTAssertEqual(try run(["encode", json.path], stdout: copy).status, 0)
        let original = try KeyedArchive(parsing: Array(Data(contentsOf: fixture)))
        XCTAssertNil(try KeyedArchive(parsing: Array(Data(contentsOf: copy))).difference(from: original), fixture.lastPathComponent)
    }

    /// Past 8 MiB the archive is written while it is built; it must be the same graph.
    func testLargeDocumentIsStreamedOut() throws {
        let input = try bigDocument(count: 220_000, tail: "\"last\"")
        let output = scratch.appendingPathComponent("big.plist")
        let (status, errors) = try run(["encode", input.path], stdout: output)
        XCTAssertEqual(status, 0, errors)
        let streamed = try KeyedArchive(parsing: Array(Data(contentsOf: output)))
        let inMemory = try KeyedArchive(parsing: JSONDocument(parsing: Array(Data(contentsOf: input))).archive(format: .binary))
        XCTAssertNil(streamed.difference(from: inMemory))
    }

    /// A refusal found after pieces went out leaves a redirected stdout as it was before.
    func testRefusedStreamLeavesTheOutputFileAsItWas() throws {
        let input = try bigDocument(count: 220_000, tail: "{\"$ref\":\"nowhere\"}")
        let output = scratch.appendingPathComponent("kept.txt")
        try Data("earlier content\n".utf8).write(to: output)
        let (status, errors) = try run(["encode", input.path], stdout: output)
        XCTAssertEqual(status, 2, errors)
        XCTAssertTrue(errors.contains("$ref"), errors)
        XCTAssertEqual(String(decoding: try Data(contentsOf: output), as: UTF8.self), "earlier content\n")
    }

    func testVersionIsTheReleaseVersion() throws {
        let out = scratch.appendingPathComponent("version.txt")
        XCTAssertEqual(try run(["--version"], stdout: out).status, 0)
        XCTAssertEqual(try String(contentsOf: out, encoding: .utf8), ReleaseVersion.current + "\n")
    }

    /// Errors are words, not enum names, and a file that is plainly something else is named
    /// with the command to run instead; each failure has its own exit status.
    func testErrorsInWordsWithHintsAndExitStatuses() throws {
        let json = scratch.appendingPathComponent("team.json")
        try Data(#"{"team":"Bears","wins":3}"#.utf8).write(to: json)
        let out = scratch.appendingPathComponent("out")
        let decoded = try run(["decode", json.path], stdout: out)
        XCTAssertEqual(decoded.status, 2, decoded.stderr)
        XCTAssertTrue(decoded.stderr.contains("not a readable property list") && decoded.stderr.contains("archive-tool encode"), decoded.stderr)
        XCTAssertFalse(decoded.stderr.contains("malformedPlist"), decoded.stderr)

        let archive = try firstAppleArchive()
        let encoded = try run(["encode", archive.path], stdout: out)
        XCTAssertEqual(encoded.status, 2, encoded.stderr)
        XCTAssertTrue(encoded.stderr.contains("not valid JSON") && encoded.stderr.contains("archive-tool decode"), encoded.stderr)

        let missing = try run(["compare", scratch.appendingPathComponent("nowhere").path, archive.path], stdout: out)
        XCTAssertEqual(missing.status, 2, "a file that cannot be read is no verdict: \(missing.stderr)")
        XCTAssertEqual(try run(["decode", "--max-depth", "0", archive.path], stdout: out).status, 64)
    }

    /// `compare` gives a verdict, 0 `same` or 1 and where, or exits 2: a file missing, not an
    /// archive or malformed, a wrong command line, never 0 or 1.
    func testCompareExitsZeroOneOrTwo() throws {
        let archive = try firstAppleArchive().path
        let out = scratch.appendingPathComponent("verdict.txt")
        let same = try run(["compare", archive, archive], stdout: out)
        XCTAssertEqual(same.status, 0, same.stderr)
        XCTAssertEqual(try String(contentsOf: out, encoding: .utf8), "same\n")
        let json = scratch.appendingPathComponent("team.json")
        try Data(#"{"team":"Bears"}"#.utf8).write(to: json)
        let truncated = scratch.appendingPathComponent("truncated.plist")
        try Data(try Data(contentsOf: URL(fileURLWithPath: archive)).prefix(40)).write(to: truncated)
        let noVerdicts: [[String]] = [
            ["compare", scratch.appendingPathComponent("nowhere").path, archive], ["compare", archive, json.path], ["compare", truncated.path, archive],
            ["compare", archive], ["compare", "--no-such-option", archive, archive]
        ]
        for arguments in noVerdicts {
            let none = scratch.appendingPathComponent("none.txt")
            let result = try run(arguments, stdout: none)
            XCTAssertEqual(result.status, 2, "\(arguments): \(result.stderr)")
            XCTAssertFalse(result.stderr.isEmpty, "\(arguments)")
            XCTAssertEqual(try Data(contentsOf: none).count, 0, "\(arguments)")
        }
    }

    /// Decodes `fixture`, edits its JSON text with `edit`, encodes it and compares: exit 1
    /// and the line printed.
    private func compareEdited(_ fixture: URL, nested: Bool = false, _ edit: (String) throws -> String) throws -> String {
        let name = UUID().uuidString
        let json = scratch.appendingPathComponent("\(name).json")
        XCTAssertEqual(try run(["decode"] + (nested ? ["--nested"] : []) + [fixture.path], stdout: json).status, 0)
        let text = try String(contentsOf: json, encoding: .utf8)
        let changed = try edit(text)
        XCTAssertNotEqual(changed, text)
        let edited = scratch.appendingPathComponent("\(name).edited.json")
        try Data(changed.utf8).write(to: edited)
        let copy = scratch.appendingPathComponent("\(name).bin")
        let encoded = try run(["encode", edited.path], stdout: copy)
        XCTAssertEqual(encoded.status, 0, encoded.stderr)
        let out = scratch.appendingPathComponent("\(name).txt")
        let compared = try run(["compare", fixture.path, copy.path], stdout: out)
        XCTAssertEqual(compared.status, 1, compared.stderr)
        return try String(contentsOf: out, encoding: .utf8)
    }

    /// `text` with its one occurrence of `old` replaced.
    private func replacingOnce(_ text: String, _ old: String, _ new: String) throws -> String {
        XCTAssertEqual(text.ranges(of: old).count, 1, old)
        return text.replacingOccurrences(of: old, with: new)
    }

    /// A real fixture with one value edited in its JSON: the line names the edited key and
    /// both values.
    func testCompareNamesTheEditedKeyAndBothValues() throws {
        let fixture = Fixtures.directory.appendingPathComponent("apple/scl-NSKeyedUnarchiver-ComplexTest.plist")
        let line = try compareEdited(fixture) { try replacingOnce($0, #""string":"hello""#, #""string":"goodbye""#) }
        XCTAssertEqual(line, ".string: \"hello\" ≠ \"goodbye\"\n")
    }

    /// Below a shared object (a game of a generated save, which teams' schedules share) the
    /// path starts at the `$id` the decoded JSON writes for it.
    func testCompareNamesADifferenceBelowASharedObject() throws {
        let save = try generatedSave()
        var (id, play) = ("", "")
        let line = try compareEdited(save) { text in
            // The second game's third record: `{"$class":"Game","$id":n,…"records":…[…,…,{…"play":{"$bytes":"…"}}`.
            let games = try XCTUnwrap(text.range(of: #""games":"#)).upperBound
            let second = try XCTUnwrap(text[games...].ranges(of: #"{"$class":"Game","$id":"#).dropFirst().first)
            id = String(text[second.upperBound...].prefix { $0.isNumber })
            let plays = text[second.upperBound...].ranges(of: #""play":{"$bytes":""#)
            let third = plays[plays.index(plays.startIndex, offsetBy: 2)].upperBound
            play = String(text[third...].prefix { $0 != "\"" })
            return try replacingOnce(text, #""play":{"$bytes":"\#(play)"}"#, #""play":{"$bytes":"AAAA\#(play.dropFirst(4))"}"#)
        }
        XCTAssertEqual(line, "$id \(id) .records.$array[2].play: {\"$bytes\": \"\(play)\"} ≠ {\"$bytes\": \"AAAA\(play.dropFirst(4))\"}\n")
    }

    /// A save of two teams made by scripts/gen/gen_game_save.py.
    private func generatedSave() throws -> URL {
        let save = scratch.appendingPathComponent("save.plist")
        let generator = Process()
        generator.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        generator.arguments = ["python3", Fixtures.repository.appendingPathComponent("scripts/gen/gen_game_save.py").path, "--teams", "2", "--out", save.path]
        generator.standardError = FileHandle.nullDevice
        try generator.run()
        generator.waitUntilExit()
        // env(1) exits 127 when it finds no python3; any other failure is the generator's.
        guard generator.terminationStatus != 127 else { throw MissingTool.error("python3 is not installed (scripts/gen/gen_game_save.py makes this test's save)") }
        guard generator.terminationStatus == 0 else { throw GeneratorFailed(status: generator.terminationStatus) }
        return save
    }

    /// scripts/gen/gen_game_save.py ran and failed: a failure of the test, not a skip.
    private struct GeneratorFailed: Error, CustomStringConvertible {
        let status: Int32
        var description: String { "scripts/gen/gen_game_save.py exited \(status)" }
    }

    /// `decode --plain` of a save reads by path, as jq reads it (`.teams[0].wins`): teams and
    /// games are arrays whatever their class, a date is text, bytes are base64, a team shared by
    /// its players is `$id` once and `{"$ref": n}` after; `encode` takes it back.
    func testPlainViewOfAGameSaveReadsByPath() throws {
        let save = try generatedSave()
        let json = scratch.appendingPathComponent("save.plain.json")
        let decoded = try run(["decode", "--plain", save.path], stdout: json)
        XCTAssertEqual(decoded.status, 0, decoded.stderr)
        let league = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: json)) as? [String: Any])
        XCTAssertEqual(league["$class"] as? String, "League")
        let teams = try XCTUnwrap(league["teams"] as? [[String: Any]])
        XCTAssertEqual(teams.count, 2)
        XCTAssertNotNil(teams[0]["wins"] as? Int)
        XCTAssertEqual(teams[0]["$class"] as? String, "Team")
        let id = try XCTUnwrap(teams[0]["$id"] as? Int)
        let players = try XCTUnwrap(teams[0]["players"] as? [[String: Any]])
        XCTAssertEqual(players[0]["team"] as? [String: Int], ["$ref": id])
        XCTAssertNotNil((players[0]["stats"] as? [String: Any])?["yards"] as? Int)
        let games = try XCTUnwrap(league["games"] as? [[String: Any]])
        XCTAssertTrue((games[0]["date"] as? String)?.hasSuffix("Z") == true, "\(games[0]["date"] ?? "none")")
        let records = try XCTUnwrap(games[0]["records"] as? [[String: Any]])
        XCTAssertNotNil(Data(base64Encoded: try XCTUnwrap(records[0]["play"] as? String)))
        XCTAssertNotNil(teams[0]["founded"] as? String)
        // Encoded as hand-written JSON, it decodes to the same plain view of the team.
        let archive = scratch.appendingPathComponent("save.again.plist")
        XCTAssertEqual(try run(["encode", json.path], stdout: archive).status, 0)
        let again = scratch.appendingPathComponent("save.again.json")
        XCTAssertEqual(try run(["decode", "--plain", archive.path], stdout: again).status, 0)
        let reread = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: again)) as? [String: Any])
        XCTAssertEqual((reread["teams"] as? [[String: Any]])?[0]["wins"] as? Int, teams[0]["wins"] as? Int)
        // The lossless view's shaping options are refused with it.
        let refused = try run(["decode", "--plain", "--max-depth", "8", save.path], stdout: scratch.appendingPathComponent("refused.json"))
        XCTAssertNotEqual(refused.status, 0)
        XCTAssertTrue(refused.stderr.contains("not --plain"), refused.stderr)
    }

    func testCompareNamesPlacesInPlainPropertyListsAndTypedStreams() throws {
        let plist = Fixtures.directory.appendingPathComponent("public/plain-plist/imessage-exporter_message_summary_info-Deleted.plist")
        let inList = try compareEdited(plist) { try replacingOnce($0, #""rp":[0]"#, #""rp":[7]"#) }
        XCTAssertEqual(inList, ".$propertyList.rp[0]: 0 ≠ 7\n")
        let stream = Fixtures.directory.appendingPathComponent("public/typedstream/imessage-exporter_attributedBody-AttributedBodyTextOnly2.bin")
        let inStream = try compareEdited(stream) { try replacingOnce($0, "Test 3", "Test 4") }
        XCTAssertEqual(inStream, ".$typedstream[0].@.$string: \"Test 3\" ≠ \"Test 4\"\n")
        let terminal = Fixtures.directory.appendingPathComponent("public/plain-plist-with-nested-archive/nord-terminal-app_Nord.terminal")
        let inPayload = try compareEdited(terminal, nested: true) { text in
            let black = try XCTUnwrap(text.range(of: #""ANSIBlackColor":"#)).upperBound
            let space = try XCTUnwrap(text[black...].range(of: #""NSColorSpace":1"#))
            // The components' `$space` label says the same, and moves with it.
            let label = try XCTUnwrap(text[black..<space.lowerBound].range(of: #""$space":"calibratedRGB""#))
            return text.replacingCharacters(in: space, with: #""NSColorSpace":2"#).replacingCharacters(in: label, with: #""$space":"deviceRGB""#)
        }
        XCTAssertEqual(inPayload, ".$propertyList.ANSIBlackColor.$data.$keyedArchive.NSColorSpace: 1 ≠ 2\n")
    }

    /// A bound too small for the archive is refused with one that fits, in the tool's flag.
    func testMaxDepthTooSmallNamesAFittingFlag() throws {
        let archive = Fixtures.directory.appendingPathComponent("apple/scl-NSKeyedUnarchiver-ComplexTest.plist")
        let out = scratch.appendingPathComponent("out")
        let refused = try run(["decode", "--max-depth", "2", archive.path], stdout: out)
        XCTAssertEqual(refused.status, 3, refused.stderr)
        let fits = try XCTUnwrap(refused.stderr.firstMatch(of: /--max-depth (\d+) fits/)).1
        XCTAssertFalse(refused.stderr.contains("maxDepth"), refused.stderr)
        XCTAssertEqual(try run(["decode", "--max-depth", String(fits), archive.path], stdout: out).status, 0)
    }

    /// `-o FILE` writes the archive there; the compact JSON ends with a newline.
    func testEncodeToAFileAndCompactJSONEndsWithANewline() throws {
        let json = scratch.appendingPathComponent("team.json")
        try Data(#"{"team":"Bears","wins":3}"#.utf8).write(to: json)
        let plist = scratch.appendingPathComponent("team.plist")
        let unused = scratch.appendingPathComponent("unused")
        XCTAssertEqual(try run(["encode", json.path, "-o", plist.path], stdout: unused).status, 0)
        XCTAssertEqual(try Data(contentsOf: unused).count, 0)
        let back = scratch.appendingPathComponent("back.json")
        XCTAssertEqual(try run(["decode", plist.path], stdout: back).status, 0)
        XCTAssertEqual(try String(contentsOf: back, encoding: .utf8), #"{"team":"Bears","wins":3}"# + "\n")
    }

    /// What the tool writes to a pseudo-terminal (from script(1)) when run with `arguments`,
    /// and its exit status as `status=N`.
    private func onTerminal(_ arguments: String) throws -> String {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { throw MissingTool.error("script(1) is not installed (bsdutils)") }
        let log = scratch.appendingPathComponent("tty.txt")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        process.arguments = ["-qec", "\(try ToolRun.tool().path) \(arguments); echo \"status=$?\"", "/dev/null"]
        process.standardOutput = try FileHandle(
            forWritingTo: {
                FileManager.default.createFile(atPath: log.path, contents: nil)
                return log
            }())
        process.standardInput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return String(decoding: try Data(contentsOf: log), as: UTF8.self)
    }

    /// A binary archive is not written to a terminal (here a pseudo-terminal from script(1)),
    /// unless --force says so.
    func testEncodeRefusesToWriteBinaryToATerminal() throws {
        let json = scratch.appendingPathComponent("team.json")
        try Data(#"{"team":"Bears"}"#.utf8).write(to: json)
        let refused = try onTerminal("encode \(json.path)")
        XCTAssertTrue(refused.contains("not writing a binary archive to a terminal") && refused.contains("status=64"), refused)
        let forced = try onTerminal("encode --force \(json.path)")
        XCTAssertTrue(forced.contains("bplist00") && forced.contains("status=0"), forced)
        let xml = try onTerminal("encode --xml \(json.path)")
        XCTAssertTrue(xml.contains("<plist") && xml.contains("status=0"), xml)
    }

    /// `summary` writes the codec's summary as JSON when stdout is not a terminal, merges
    /// several files (stdin among them), and exits as decode does: 2 not convertible, 3 too
    /// deep for the stack, 4 unreadable.
    func testSummaryJSONMergesAndExits() throws {
        let first = Fixtures.directory.appendingPathComponent("apple/scl-NSKeyedUnarchiver-ComplexTest.plist")
        let second = Fixtures.directory.appendingPathComponent("public/plain-plist-with-nested-archive/nord-terminal-app_Nord.terminal")
        let one = scratch.appendingPathComponent("one.json")
        XCTAssertEqual(try run(["summary", first.path], stdout: one).status, 0)
        let expected = try Archive(parsing: Array(Data(contentsOf: first))).summary().json(pretty: false)
        XCTAssertEqual(Array(try Data(contentsOf: one)), expected + [0x0A])

        let both = scratch.appendingPathComponent("both.json")
        let merged = try run(["summary", "--json", "--nested", first.path, "-"], stdout: both, stdin: try FileHandle(forReadingFrom: second))
        XCTAssertEqual(merged.status, 0, merged.stderr)
        let summary = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: both)) as? [String: Any])
        let a = try Archive(parsing: Array(Data(contentsOf: first))).summary(nested: true)
        let b = try Archive(parsing: Array(Data(contentsOf: second))).summary(nested: true)
        XCTAssertEqual(summary["format"] as? String, "mixed")
        XCTAssertEqual(summary["files"] as? Int, 2)
        XCTAssertEqual(summary["bytes"] as? Int, a.bytes + b.bytes)
        XCTAssertEqual(summary["objects"] as? Int, a.objects + b.objects)
        let files = (summary["largestStrings"] as? [[String: Any]] ?? []).compactMap { $0["file"] as? String }
        XCTAssertEqual(Set(files), [first.path, "stdin"])

        let out = scratch.appendingPathComponent("out")
        XCTAssertEqual(try run(["summary", scratch.appendingPathComponent("nowhere").path], stdout: out).status, 4)
        let json = scratch.appendingPathComponent("team.json")
        try Data(#"{"team":"Bears"}"#.utf8).write(to: json)
        let notConvertible = try run(["summary", json.path], stdout: out)
        XCTAssertEqual(notConvertible.status, 2)
        XCTAssertTrue(notConvertible.stderr.contains("archive-tool encode"), notConvertible.stderr)
        let chain = scratch.appendingPathComponent("chain.bplist")
        try Data(chainArchive(count: 20_000)).write(to: chain)
        let deep = try run(["summary", "--stack-mib", "1", chain.path], stdout: out)
        XCTAssertEqual(deep.status, 3, deep.stderr)
        XCTAssertTrue(deep.stderr.contains("--stack-mib"), deep.stderr)
        XCTAssertEqual(try run(["summary", chain.path], stdout: out).status, 0)
        XCTAssertEqual(try run(["summary"], stdout: out).status, 64)
    }

    /// `get` finds a value before the archive is placed: from a chain too deep for a 1 MiB
    /// stack to decode whole, a value near its head is answered, and the chain's rest (as
    /// deep as the whole) exits 3 as a decode does.
    func testGetAnswersAValueThatFitsFromAnArchiveTooDeepToDecode() throws {
        let chain = scratch.appendingPathComponent("chain.bplist")
        try Data(chainArchive(count: 20_000)).write(to: chain)
        let out = scratch.appendingPathComponent("out")
        XCTAssertEqual(try run(["decode", "--stack-mib", "1", chain.path], stdout: out).status, 3)
        let value = try run(["get", "--stack-mib", "1", chain.path, ".next.next.$class"], stdout: out)
        XCTAssertEqual(value.status, 0, value.stderr)
        XCTAssertEqual(String(decoding: try Data(contentsOf: out), as: UTF8.self), "\"Node\"\n")
        let rest = try run(["get", "--stack-mib", "1", chain.path, ".next"], stdout: out)
        XCTAssertEqual(rest.status, 3, rest.stderr)
        XCTAssertTrue(rest.stderr.contains("--stack-mib"), rest.stderr)
    }

    /// A keyed archive of a linked list of `count` nodes, as deep as it is long.
    private func chainArchive(count: Int) -> [UInt8] {
        var plist = TestPlistBuilder()
        let (classKey, nextKey) = (plist.string("$class"), plist.string("next"))
        var objects = [plist.string("$null")]
        for node in 1...count {
            objects.append(plist.add(.dict([(classKey, plist.uid(count + 1)), (nextKey, plist.uid(node < count ? node + 1 : 0))])))
        }
        let chain = plist.add(.array([plist.string("Node"), plist.string("NSObject")]))
        objects.append(plist.add(.dict([(plist.string("$classname"), plist.string("Node")), (plist.string("$classes"), chain)])))
        let top = plist.add(.dict([(plist.string("root"), plist.uid(1))]))
        let root = plist.add(
            .dict([
                (plist.string("$version"), plist.integer(100_000)), (plist.string("$archiver"), plist.string("NSKeyedArchiver")),
                (plist.string("$top"), top), (plist.string("$objects"), plist.add(.array(objects)))
            ]))
        return plist.binary(top: root)
    }

    /// On a terminal, a table: the totals, each class with its counts and chain, its keys
    /// indented under it, the largest values with their places.
    func testSummaryTableOnATerminal() throws {
        let archive = Fixtures.directory.appendingPathComponent("apple/scl-NSKeyedUnarchiver-ComplexTest.plist")
        let table = try onTerminal("summary \(archive.path)")
        XCTAssertTrue(table.contains("keyedArchive, 1 file, 686 bytes"), table)
        XCTAssertTrue(table.contains("objects 22, shared 1, cyclic 0"), table)
        XCTAssertTrue(table.contains("NSURL") && table.contains("NSURL → NSObject"), table)
        XCTAssertTrue(table.contains("NS.relative") && table.contains("string 2"), table)
        XCTAssertTrue(table.contains(#".url["NS.base"]["NS.relative"]  "https://www.swift.org""#), table)
        XCTAssertTrue(table.contains("status=0"), table)
        XCTAssertTrue(try onTerminal("summary --json \(archive.path)").contains(#"{"format":"keyedArchive""#))
    }

    /// Text from the archives and the command line (class names, chains, keys, kinds, file
    /// names, paths, previews) reaches the terminal escaped: an archive cannot send it control
    /// sequences.
    func testSummaryTableEscapesWhatTheArchivesHold() throws {
        let name = "Evil\u{1B}]0;title\u{07}"
        let text = "text\u{1B}[2J\u{202E}\u{85}" + String(repeating: "x", count: 200)
        var plist = TestPlistBuilder()
        let chain = plist.add(.array([plist.string(name), plist.string("NSObject")]))
        let objects = [
            plist.string("$null"),
            plist.add(.dict([(plist.string("$class"), plist.uid(3)), (plist.string("k\u{9B}2J"), plist.uid(2)), (plist.string("self"), plist.uid(1))])),
            plist.string(text),
            plist.add(.dict([(plist.string("$classname"), plist.string(name)), (plist.string("$classes"), chain)]))
        ]
        let top = plist.add(.dict([(plist.string("root"), plist.uid(1))]))
        let root = plist.add(
            .dict([
                (plist.string("$version"), plist.integer(100_000)), (plist.string("$archiver"), plist.string("NSKeyedArchiver")),
                (plist.string("$top"), top), (plist.string("$objects"), plist.add(.array(objects)))
            ]))
        let file = scratch.appendingPathComponent("a\u{1B}[31mb.plist")
        try Data(plist.binary(top: root)).write(to: file)
        let other = Fixtures.directory.appendingPathComponent("apple/scl-NSKeyedUnarchiver-ComplexTest.plist")
        let table = try onTerminal("summary '\(file.path)' \(other.path)")
        XCTAssertTrue(table.contains("status=0"), table)
        let acted = table.unicodeScalars.filter { [0x07, 0x1B, 0x85, 0x9B, 0x202E].contains($0.value) }
        XCTAssertTrue(acted.isEmpty, table.debugDescription)
        for shown in [
            #"Evil\u{1B}]0;title\u{07}  "#, #"Evil\u{1B}]0;title\u{07} → NSObject"#, #"k\u{9B}2J"#, #"Evil\u{1B}]0;title\u{07} 1"#,
            #"a\u{1B}[31mb.plist .["k\u{9B}2J"]  "text\u{1B}[2J\u{202E}\u{85}xxx"#
        ] {
            XCTAssertTrue(table.contains(shown), "\(shown) in \(table.debugDescription)")
        }
    }

    /// `decode --salvage`: a damaged typedstream's JSON with its break marked, exit 5 (2 without
    /// it); `encode` refuses the mark (exit 2) unless `--drop-broken`.
    func testSalvageExitsFiveAndEncodeDropsTheMarkOnlyWhenTold() throws {
        let damaged = Fixtures.directory.appendingPathComponent("public/typedstream/imessage-exporter_attributedBody-ExtraData.bin").path
        let json = scratch.appendingPathComponent("salvaged.json")
        XCTAssertEqual(try run(["decode", damaged], stdout: json).status, 2)
        let salvaged = try run(["decode", "--salvage", damaged], stdout: json)
        XCTAssertEqual(salvaged.status, 5, salvaged.stderr)
        XCTAssertTrue(salvaged.stderr.contains("salvaged: 1 place"), salvaged.stderr)
        XCTAssertTrue(try String(contentsOf: json, encoding: .utf8).contains(#""$broken":{"offset":121,"#))
        let archive = scratch.appendingPathComponent("salvaged.bin")
        let refused = try run(["encode", json.path], stdout: archive)
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("--drop-broken"), refused.stderr)
        XCTAssertEqual(try run(["encode", "--drop-broken", json.path], stdout: archive).status, 0)
        XCTAssertEqual(try run(["decode", archive.path], stdout: scratch.appendingPathComponent("again.json")).status, 0)
        let whole = Fixtures.directory.appendingPathComponent("public/typedstream/imessage-exporter_attributedBody-AttributedBodyTextOnly2.bin").path
        XCTAssertEqual(try run(["decode", "--salvage", whole], stdout: json).status, 0)
        XCTAssertEqual(try run(["decode", "--salvage", "--plain", whole], stdout: json).status, 64)
    }

    /// `decode --salvage` of a keyed archive whose graph is broken (a UID past `$objects`):
    /// exit 5 with the place marked (2 without it, the refusal as before); `encode
    /// --drop-broken` writes an archive that decodes whole.
    func testSalvageOfAKeyedArchiveExitsFive() throws {
        var bytes = try Fixtures.bytes("goios_arrays.bin")
        bytes[187] = 0xFF  // the UID object at byte 186 (the $0 array's 10th and 11th elements) names entry 255 of 21
        let damaged = scratch.appendingPathComponent("damaged.bin")
        try Data(bytes).write(to: damaged)
        let json = scratch.appendingPathComponent("salvaged.json")
        let refused = try run(["decode", damaged.path], stdout: json)
        XCTAssertEqual(refused.status, 2)
        XCTAssertTrue(refused.stderr.contains("UID 255 is out of range"), refused.stderr)
        let salvaged = try run(["decode", "--salvage", damaged.path], stdout: json)
        XCTAssertEqual(salvaged.status, 5, salvaged.stderr)
        XCTAssertTrue(salvaged.stderr.contains("salvaged: 1 place"), salvaged.stderr)
        XCTAssertTrue(try String(contentsOf: json, encoding: .utf8).contains(#"{"$broken":{"offset":186,"reason":"UID 255 is out of range"#))
        let archive = scratch.appendingPathComponent("salvaged.bin")
        XCTAssertEqual(try run(["encode", json.path], stdout: archive).status, 2)
        XCTAssertEqual(try run(["encode", "--drop-broken", json.path], stdout: archive).status, 0)
        XCTAssertEqual(try run(["decode", archive.path], stdout: scratch.appendingPathComponent("again.json")).status, 0)
        XCTAssertEqual(try run(["decode", "--salvage", "--pretty", damaged.path], stdout: json).status, 5)
        XCTAssertTrue(try String(contentsOf: json, encoding: .utf8).contains(#""$broken": {"#))
    }
}
