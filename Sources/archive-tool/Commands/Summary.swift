import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `archive-tool summary`: what one or more documents hold (`ArchiveSummary`), merged into one
/// summary: a table on a terminal, JSON otherwise or with `--json`. Refused (exit 3) where
/// `decode` would be refused for depth, with the same stack option.
struct Summary: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "What archives hold: objects, classes and their keys, sharing, cycles, nesting, nested payloads, the largest values.",
        discussion: """
            Several files merge into one summary (counts add up; "mixed" when their formats differ). \
            A table on a terminal, JSON when stdout is not one or with --json (the shape /v1/decode?view=summary answers). \
            An archive whose readable JSON is deeper than decoding's stack admits exits 3, as decode does.
            """)

    @Argument(help: "Archives, other property lists or typedstreams; - for stdin.")
    var files: [String]

    @Flag(help: "Write JSON even on a terminal.")
    var json = false

    @Flag(help: "Also count inside the documents that data values hold (nested payloads), recursively.")
    var nested = false

    @OptionGroup var stack: StackOptions

    func validate() throws {
        if files.isEmpty { throw ValidationError("give at least one file") }
        if files.filter({ $0 == "-" }).count > 1 { throw ValidationError("stdin (-) can be read once") }
    }

    func run() throws {
        let policy = stack.skipDepthCheck ? DecodePolicy(depthLimit: .max) : DecodePolicy(stackSize: stack.bytes)
        var merged: ArchiveSummary?
        for file in files {
            let input = try readInput(file)
            let summary = try reportingErrors(hint: { Hint.decoding(input, error: $0) }) { () throws(CodecError) -> ArchiveSummary in
                // Reading and placing use both cores, as decode's do; the summary is the same.
                let cores = coreParallelism(stackSize: stack.bytes)
                let summary = try Archive(parsing: input, parallelism: cores).summary(nested: nested, parallelism: cores)
                if let refusal = policy.refusal(depth: summary.readableNesting, pretty: false) {
                    throw Decode.refused(refusal, stackSize: stack.bytes)
                }
                return summary
            }
            // Merged, each largest value says which file holds it.
            let named = files.count > 1 ? summary.attributed(to: file == "-" ? "stdin" : file) : summary
            merged = merged.map { $0.merged(with: named) } ?? named
        }
        guard let merged else { return }
        let text = json || isatty(1) == 0 ? merged.json(pretty: false) + [UInt8(ascii: "\n")] : Array(SummaryTable.text(of: merged).utf8)
        let failure = text.withUnsafeBytes { writeAll($0, to: 1) }
        guard failure == 0 else {
            writeAll("archive-tool: cannot write the summary: \(String(cString: strerror(failure)))\n", to: 2)
            throw ExitCode(ExitStatus.inputOutput)
        }
    }
}
