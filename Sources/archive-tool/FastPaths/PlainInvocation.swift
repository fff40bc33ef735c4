import ArchiveCodec
import ArgumentParser

/// The usual forms run without the argument parser, with the options' defaults for what they
/// do not say: `decode FILE` with any of `--nested`, `--pretty`, `--raw`, `--plain`,
/// `--exact-integers`, `--exact-numbers` (each at most once; not `--raw` with the readable
/// view's options, not `--plain` with `--raw` or the number options), and
/// `encode FILE`; either with `-o OUT` (or `--output OUT`). Setting the parser up reflects over
/// every command's options, a fixed cost on every run that is large next to converting a small
/// archive (docs/benchmarks.md, "Start-up and output of `archive-tool`"). Any other arguments,
/// `--help` or another option among them, an argument starting with `-` but `-` itself (stdin),
/// go to the parser, which then gives its own answer and errors.
enum PlainInvocation {
    /// What `decode` takes here, each a flag of `Decode`.
    private static let decodeFlags: [String] = ["--nested", "--pretty", "--raw", "--plain", "--exact-integers", "--exact-numbers"]

    /// Converts and exits if `arguments` are one of the usual forms; returns otherwise.
    static func runIfPlain(_ arguments: [String]) {
        guard let command = arguments.first, command == "decode" || command == "encode" else { return }
        var given: String?
        var output: String?
        var flags: [String] = []
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            if argument == "-o" || argument == "--output" {
                guard output == nil, let value = rest.popFirst(), !value.hasPrefix("-") else { return }
                output = value
            } else if command == "decode", decodeFlags.contains(argument) {
                guard !flags.contains(argument) else { return }
                flags.append(argument)
            } else if argument == "-" || !argument.hasPrefix("-") {
                guard given == nil else { return }
                given = argument
            } else {
                return
            }
        }
        guard let text = given else { return }
        // The file's bytes as given, not its text (a name that is not UTF-8 is another name as text).
        let commandType: any FileListCommand.Type = command == "decode" ? Decode.self : Encode.self
        let file = CommandLineFiles.paths([text], of: commandType)[0]
        let outputPath = output.map { CommandLineFiles.optionValue($0, named: ["-o", "--output"], of: commandType) }
        let (raw, plain, pretty, nested) = (flags.contains("--raw"), flags.contains("--plain"), flags.contains("--pretty"), flags.contains("--nested"))
        let (exactIntegers, exactNumbers) = (flags.contains("--exact-integers"), flags.contains("--exact-numbers"))
        // A combination the parser refuses goes to the parser, for its refusal.
        guard Decode.viewConflict(raw: raw, plain: plain, maxDepth: false, numbers: exactIntegers || exactNumbers, nested: nested) == nil else { return }
        let numbers = NumberWrapping(exactIntegers: exactIntegers, exactNumbers: exactNumbers)
        let conversion: () throws -> Void
        if command == "decode" {
            conversion = {
                if let outputPath { try redirectStandardOutput(to: outputPath) }
                let shape: Decode.Shape = plain ? .plain : .lossless(raw ? .raw : .readable, maxDepth: nil, numbers: numbers)
                try Decode.convert(file, as: shape, pretty: pretty, nested: nested, stackSize: StackOptions.defaultStackMiB << 20, skipDepthCheck: false)
                try commitStandardOutput()
            }
        } else {
            conversion = {
                if let outputPath { try redirectStandardOutput(to: outputPath) }
                try Encode.convert(file, xml: false)
                try commitStandardOutput()
            }
        }
        do {
            try conversion()
        } catch {
            ArchiveTool.exit(withError: error)
        }
        ArchiveTool.exit()
    }
}
