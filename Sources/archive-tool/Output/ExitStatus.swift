import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The tool's exit statuses, one meaning each, as `archive-tool --help` lists them.
enum ExitStatus {
    /// `compare`: the archives hold different object graphs (like cmp and diff).
    static let differ: Int32 = 1
    /// Many files (`--output-dir`): some could not be converted (each said on stderr); the
    /// others were.
    static let someFailed: Int32 = 1
    /// `compare`: no verdict, for whatever reason (a file missing or unreadable, not a
    /// document, malformed, over a limit, a wrong command line), as cmp and diff exit 2.
    static let noVerdict: Int32 = 2
    /// The input cannot be converted: not a property list or JSON, not an archive, a broken
    /// graph, JSON that does not follow the mapping.
    static let notConvertible: Int32 = 2
    /// Over a limit: deeper than the stack admits, too large, or a --max-depth too small.
    static let overLimit: Int32 = 3
    /// A file could not be read or the output written.
    static let inputOutput: Int32 = 4
    /// `decode --salvage`: the input was damaged; the JSON was written with what could not be
    /// read marked `$broken` (never passed off as a whole file's JSON).
    static let salvaged: Int32 = 5
    /// The command line is wrong (ArgumentParser's own status for usage errors, EX_USAGE).
    static let usage: Int32 = 64

    /// The status for `error`: over a limit, or not convertible.
    static func of(_ error: CodecError) -> Int32 {
        error.kind == .limitExceeded || error.kind == .depthBoundTooSmall ? overLimit : notConvertible
    }

    /// The table `archive-tool --help` shows.
    static let help = """
        Exit status: 0 success; 1 compare: the archives differ, or with --output-dir: some \
        files could not be converted (each named on stderr), the others were; 2 the input cannot be \
        converted; 3 over a limit (too deep for the stack, too large, --max-depth too small); \
        4 a file could not be read or the output written; 5 decode --salvage: the file was damaged, \
        its JSON written with what could not be read marked $broken; 64 the command line is wrong. \
        compare gives a verdict or none: 0 same (it prints `same`), 1 different (it prints \
        where), 2 anything else (a file missing, unreadable, not an archive, malformed, too \
        large; a wrong command line).
        """
}

/// Prints a codec error in words (and, when the input looks like something else, what to do
/// instead) and exits 2, or 3 when a limit (depth, size) was exceeded.
func reportingErrors<T>(hint: (CodecError) -> String? = { _ in nil }, _ body: () throws(CodecError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        let (message, hint) = described(error, hint: hint)
        var text = "archive-tool: \(message)\n"
        if let hint { text += "archive-tool: \(hint)\n" }
        writeAll(text, to: 2)
        throw ExitCode(ExitStatus.of(error))
    }
}

/// Runs `body`; when a path leads nowhere or its walk is refused, writes why to stderr and
/// exits: with the refusal's status (a bound, the deadline), else "not convertible".
func reportingPathFailure<T>(_ body: () throws(JSONDocument.PathFailure) -> T) throws -> T {
    do {
        return try body()
    } catch {
        writeAll("archive-tool: \(TerminalText.escaped(error.description))\n", to: 2)
        throw ExitCode(error.refusal.map(ExitStatus.of) ?? ExitStatus.notConvertible)
    }
}

/// A codec error in the tool's words: its message with the remedy in this tool's flags, and
/// the hint for an input that is plainly something else (`Hint`), if there is one. The one
/// wording of a failed conversion, on its own lines (`reportingErrors`) or after a file's
/// path (`BatchRun.converting`).
func described(_ error: CodecError, hint: (CodecError) -> String?) -> (message: String, hint: String?) {
    ("\(error)\(remedy(error.remedy))", hint(error))
}

/// The codec's remedy in the tool's flags, appended to its message.
func remedy(_ remedy: CodecError.Remedy?) -> String {
    switch remedy {
    case nil: ""
    case .rawView: " (decode --raw shows it as it is)"
    case .nestingBound(let bound): "; --max-depth \(bound) fits"
    case .dropBroken: " (encode --drop-broken writes the archive without it)"
    }
}
