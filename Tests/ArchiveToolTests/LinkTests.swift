import Foundation
import TestSupport
import XCTest

/// Symbolic links that lead nowhere (their target missing, or links round in a loop): in a
/// recursive walk each is a failure of the run, one line naming it (it was left out unsaid);
/// given on the command line, the line says it is such a link. Links to folders are not
/// followed, and said so on a line of their own, as are pipes and other special files: notes,
/// not failures.
final class LinkTests: XCTestCase {
    private var scratch: URL!

    override func setUpWithError() throws {
        scratch = FileManager.default.temporaryDirectory.appendingPathComponent("archive-tool-links-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: scratch, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: scratch)
    }

    /// A folder holding an archive, a link to it, a link to a folder, and `links`.
    private func folder(with links: [(name: String, target: String)]) throws -> URL {
        let folder = scratch.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("sub"), withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: Fixtures.directory.appendingPathComponent("apple/scl-NSKeyedUnarchiver-OrderedSetTest.plist"), to: folder.appendingPathComponent("ok.plist"))
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("link.plist").path, withDestinationPath: "ok.plist")
        try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent("sub/up").path, withDestinationPath: "..")
        for (name, target) in links { try FileManager.default.createSymbolicLink(atPath: folder.appendingPathComponent(name).path, withDestinationPath: target) }
        return folder
    }

    /// The note the fixture folder's link to its parent gets in every walk.
    private static func upNote(_ folder: URL) -> String {
        "archive-tool: \(folder.path)/sub/up is a link to a folder (..): not followed; give that folder to convert its files"
    }

    /// A link to a folder and a named pipe in a walk: each said on a line of its own, neither
    /// followed nor read (a pipe's reader would wait for a writer for ever), and not failures:
    /// the run exits 0.
    func testWhatAWalkPassesOverIsSaid() throws {
        let folder = try folder(with: [])
        let fifo = folder.appendingPathComponent("sub/pipe")
        XCTAssertEqual(mkfifo(fifo.path, 0o600), 0)
        let out = scratch.appendingPathComponent("out")
        let result = try ToolRun.run(["decode", "--recursive", "--output-dir", out.path, folder.path], stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(result.status, 0, result.stderr)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, result.stderr)
        XCTAssertEqual(Array(lines.prefix(2)), ["archive-tool: \(fifo.path) is a named pipe: not converted", Self.upNote(folder)])
        XCTAssertTrue(lines[2].hasPrefix("archive-tool: decoded 2 of 2 files into \(out.path)"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(), ["link.plist.json", "ok.plist.json"])
    }

    func testADanglingLinkInAWalkIsSaid() throws {
        let folder = try folder(with: [("gone.plist", "missing.plist")])
        let out = scratch.appendingPathComponent("out")
        let result = try ToolRun.run(["decode", "--recursive", "--output-dir", out.path, folder.path], stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(result.status, 1, result.stderr)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, result.stderr)
        XCTAssertEqual(lines.first, Self.upNote(folder))
        XCTAssertEqual(lines[1], "\(folder.path)/gone.plist: cannot follow it: No such file or directory (a symbolic link whose target is missing: missing.plist)")
        XCTAssertTrue((lines.last ?? "").hasPrefix("archive-tool: decoded 2 of 3 files into \(out.path), 1 failed"), result.stderr)
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: out.path).sorted(), ["link.plist.json", "ok.plist.json"])
    }

    /// A link to itself and two links to each other: each said, none followed for ever.
    func testALinkLoopInAWalkIsSaid() throws {
        let folder = try folder(with: [("self", "self"), ("ping", "pong"), ("pong", "ping")])
        let out = scratch.appendingPathComponent("out")
        let result = try ToolRun.run(["decode", "--recursive", "--output-dir", out.path, folder.path], stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(result.status, 1, result.stderr)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 5, result.stderr)
        XCTAssertEqual(lines.first, Self.upNote(folder))
        for (line, (name, target)) in zip(lines.dropFirst(), [("ping", "pong"), ("pong", "ping"), ("self", "self")]) {
            XCTAssertEqual(line, "\(folder.path)/\(name): cannot follow it: Too many levels of symbolic links (symbolic links that lead round in a loop, from \(target))")
        }
        XCTAssertTrue((lines.last ?? "").hasPrefix("archive-tool: decoded 2 of 5 files into \(out.path), 3 failed"), result.stderr)
    }

    /// Given on the command line, a link that leads nowhere is a file that cannot be opened, and
    /// the line says why; alone, it exits 4 with the same words.
    func testALinkGivenThatLeadsNowhereIsSaid() throws {
        let folder = try folder(with: [("gone.plist", "missing.plist"), ("self", "self")])
        let (gone, loop) = (folder.appendingPathComponent("gone.plist").path, folder.appendingPathComponent("self").path)
        let out = scratch.appendingPathComponent("out")
        let result = try ToolRun.run(["decode", "--output-dir", out.path, gone, folder.appendingPathComponent("ok.plist").path, loop], stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(result.status, 1, result.stderr)
        let lines = result.stderr.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3, result.stderr)
        XCTAssertTrue(lines.contains("\(gone): cannot open it: No such file or directory (a symbolic link whose target is missing: missing.plist)"), result.stderr)
        XCTAssertTrue(lines.contains("\(loop): cannot open it: Too many levels of symbolic links (symbolic links that lead round in a loop, from self)"), result.stderr)
        let alone = try ToolRun.run(["decode", gone], stdout: scratch.appendingPathComponent("stdout"))
        XCTAssertEqual(alone.status, 4)
        XCTAssertEqual(alone.stderr, "archive-tool: cannot open \(gone): No such file or directory (a symbolic link whose target is missing: missing.plist)\n")
    }
}
