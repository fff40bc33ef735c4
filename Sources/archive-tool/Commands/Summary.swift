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
            Several files merge into one summary (counts add up; "mixed" when their formats differ); \
            a file among several that cannot be read or summarised is one line on stderr beginning \
            with its path, the others are summarised, and the exit status is 1. \
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
        var merged: ArchiveSummary?
        var failed = 0
        for file in CommandLineFiles.paths(files, of: Summary.self) {
            let summary: ArchiveSummary
            if files.count == 1 {
                let input = try readInput(file)
                summary = try reportingErrors(hint: { Hint.decoding(input, error: $0) }) { () throws(CodecError) in try summarize(input) }
            } else {
                // One of several: a failure is said and the others are summarised.
                switch readWholeFile(file) {
                case .failure(let failure):
                    writeAll(file.shown + ": " + TerminalText.escaped(failure.messageAfterPath) + "\n", to: 2)
                    failed += 1
                    continue
                case .success(let input):
                    switch BatchRun.converting(input, hint: { Hint.decoding(input, error: $0) }, { () throws(CodecError) in try summarize(input) }) {
                    case .failure(let failure):
                        writeAll(file.shown + ": " + TerminalText.escaped(failure.message) + "\n", to: 2)
                        failed += 1
                        continue
                    case .success(let value): summary = value
                    }
                }
            }
            // Merged, each largest value says which file holds it.
            let named =
                files.count > 1
                ? summary.attributed(to: file.isStandardInput ? "stdin" : file.replacingInvalidUTF8, exactName: file.isUTF8 ? nil : Array(file.bytes)) : summary
            merged = merged.map { $0.merged(with: named) } ?? named
        }
        guard let merged else { throw ExitCode(ExitStatus.someFailed) }
        let text = json || isatty(1) == 0 ? merged.json(pretty: false) + [UInt8(ascii: "\n")] : Array(SummaryTable.text(of: merged).utf8)
        let failure = text.withUnsafeBytes { writeAll($0, to: 1) }
        guard failure == 0 else {
            writeAll("archive-tool: cannot write the summary: \(String(cString: strerror(failure)))\n", to: 2)
            throw ExitCode(ExitStatus.inputOutput)
        }
        if failed > 0 { throw ExitCode(ExitStatus.someFailed) }
    }

    /// The summary of one document, refused where `decode` would be refused for depth.
    private func summarize(_ input: [UInt8]) throws(CodecError) -> ArchiveSummary {
        let policy = stack.skipDepthCheck ? DecodePolicy(depthLimit: .max) : DecodePolicy(stackSize: stack.bytes)
        // Reading and placing use both cores, as decode's do; the summary is the same.
        let cores = coreParallelism(stackSize: stack.bytes, inputSize: input.count)
        let summary = try Archive(parsing: input, parallelism: cores).summary(nested: nested, parallelism: cores)
        if let refusal = policy.refusal(depth: summary.readableNesting, pretty: false) {
            throw Decode.refused(refusal, stackSize: stack.bytes)
        }
        return summary
    }
}
