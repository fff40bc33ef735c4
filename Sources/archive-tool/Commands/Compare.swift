import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `archive-tool compare`: whether two archives hold the same object graph (`ArchiveEquivalence`).
struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Whether two archives hold the same object graph (exit 0) or not (exit 1, first difference on stdout).",
        discussion: """
            UID numbering, object order, binary versus XML and string storage may differ; classes, keys, \
            values, sharing and cycles may not. A file that cannot be read exits 4, one that is not an \
            archive 2: never 1, which means the two differ.
            """)

    @Argument(help: "First archive, or - for stdin.")
    var first: String

    @Argument(help: "Second archive.")
    var second: String

    func run() throws {
        let (left, right) = (try readInput(first), try readInput(second))
        let difference = try reportingErrors { () throws(CodecError) -> String? in
            try Archive(parsing: left).difference(from: Archive(parsing: right))
        }
        if let difference {
            writeAll("\(difference)\n", to: 1)
            throw ExitCode(ExitStatus.differ)
        }
    }
}
