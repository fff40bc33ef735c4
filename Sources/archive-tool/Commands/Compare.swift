import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `archive-tool compare`: whether two documents hold the same object graph (`Archive.difference`),
/// as a verdict: `same` and exit 0, or the first difference and exit 1, named in the first
/// document's readable JSON (docs/archive-tool.md, "compare"). Anything that is not a verdict
/// (a file missing or unreadable, not a document, malformed, over a limit, a wrong command
/// line) exits 2 (`ExitStatus.noVerdict`), never 0 or 1.
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Whether two archives hold the same object graph: `same` and exit 0, or where they first differ and exit 1.",
        discussion: """
            UID numbering, object order, binary versus XML and string storage may differ; classes, keys, \
            values, sharing and cycles may not. A difference is named in the first file's JSON (what \
            `archive-tool decode A` prints) with both values: `.games.$array[3].name: "Bears" ≠ "Lions"`, \
            or from the object written with "$id": 47, `$id 47 .home.name: …`. Exit 0 same, 1 different, \
            2 no verdict: a file that cannot be read, is not an archive or is malformed (never 0 or 1).
            """)

    @Argument(help: "First archive, or - for stdin.")
    var first: String

    @Argument(help: "Second archive.")
    var second: String

    func run() throws {
        let difference = try givingNoVerdict { () throws -> String? in
            let paths = CommandLineFiles.paths([first, second], of: Compare.self)
            let (left, right) = (try readInput(paths[0]), try readInput(paths[1]))
            return try reportingErrors { () throws(CodecError) -> String? in
                try Archive(parsing: left).difference(from: Archive(parsing: right))
            }
        }
        guard let difference else {
            writeAll("same\n", to: 1)
            return
        }
        writeAll("\(difference)\n", to: 1)
        throw ExitCode(ExitStatus.differ)
    }

    /// Runs `body`; any failure (its message already written) exits `ExitStatus.noVerdict`.
    private func givingNoVerdict<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw ExitCode(ExitStatus.noVerdict)
        }
    }

    /// Runs `compare` with `arguments` (its name first) and exits: as any command, except that
    /// a wrong command line exits `ExitStatus.noVerdict` (its message and usage on stderr), so
    /// that only a verdict exits 0 or 1.
    static func runAsVerdict(_ arguments: [String]) -> Never {
        do {
            var command = try ArchiveTool.parseAsRoot(arguments)
            try command.run()
            ArchiveTool.exit()
        } catch {
            let status = ArchiveTool.exitCode(for: error).rawValue
            guard status == ExitStatus.usage else { ArchiveTool.exit(withError: error) }
            writeAll(ArchiveTool.fullMessage(for: error) + "\n", to: 2)
            ArchiveTool.exit(withError: ExitCode(ExitStatus.noVerdict))
        }
    }
}
