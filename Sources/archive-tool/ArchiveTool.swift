import ArchiveCodec
import ArgumentParser

/// `archive-tool`: converts NSKeyedArchiver archives and plain property lists to JSON and back on the command line.
@main
struct ArchiveTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive-tool",
        abstract: "Convert NSKeyedArchiver archives, other property lists (binary or XML) and NSArchiver typedstreams to JSON and back.",
        discussion: ExitStatus.help,
        version: ReleaseVersion.current,
        subcommands: [Decode.self, Encode.self, Get.self, SetValue.self, InsertValue.self, RemoveValue.self, Compare.self, Depth.self, Summary.self])

    /// A large input re-executes the tool for huge pages first (`HugePages`), before any
    /// argument parsing; `decode FILE` and `encode FILE` then run without the parser
    /// (`PlainInvocation`), long lists of files around it (`LongFileLists`), anything else
    /// through it (`compare` as a verdict, `Compare.runAsVerdict`).
    static func main() {
        HugePages.reexecIfWorthIt(arguments: CommandLine.arguments)
        let arguments = Array(CommandLine.arguments.dropFirst())
        PlainInvocation.runIfPlain(arguments)
        LongFileLists.runIfLong(arguments)
        if arguments.first == "compare" { Compare.runAsVerdict(arguments) }
        main(arguments)
    }
}
