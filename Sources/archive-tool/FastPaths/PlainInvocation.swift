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
    private static let decodeFlags: Set<String> = ["--nested", "--pretty", "--raw", "--plain", "--exact-integers", "--exact-numbers"]

    /// Converts and exits if `arguments` are one of the usual forms; returns otherwise.
    static func runIfPlain(_ arguments: [String]) {
        guard let command = arguments.first, command == "decode" || command == "encode" else { return }
        var file: String?
        var output: String?
        var flags = Set<String>()
        var rest = arguments.dropFirst()
        while let argument = rest.popFirst() {
            if argument == "-o" || argument == "--output" {
                guard output == nil, let value = rest.popFirst(), !value.hasPrefix("-") else { return }
                output = value
            } else if command == "decode", decodeFlags.contains(argument) {
                guard flags.insert(argument).inserted else { return }
            } else if argument == "-" || !argument.hasPrefix("-") {
                guard file == nil else { return }
                file = argument
            } else {
                return
            }
        }
        guard let file else { return }
        let raw = flags.contains("--raw")
        if raw, !flags.isDisjoint(with: ["--nested", "--exact-integers", "--exact-numbers"]) { return }
        let plain = flags.contains("--plain")
        if plain, !flags.isDisjoint(with: ["--raw", "--exact-integers", "--exact-numbers"]) { return }
        let conversion: () throws -> Void
        if command == "decode" {
            conversion = {
                if let output { try redirectStandardOutput(to: output) }
                if plain {
                    try Decode.convertPlain(
                        file, pretty: flags.contains("--pretty"), nested: flags.contains("--nested"), stackSize: StackOptions.defaultStackMiB << 20,
                        skipDepthCheck: false)
                    return
                }
                try Decode.convert(
                    file, view: raw ? .raw : .readable, pretty: flags.contains("--pretty"),
                    numbers: NumberWrapping(exactIntegers: flags.contains("--exact-integers"), exactNumbers: flags.contains("--exact-numbers")),
                    nested: flags.contains("--nested"), stackSize: StackOptions.defaultStackMiB << 20, skipDepthCheck: false)
            }
        } else {
            conversion = {
                if let output { try redirectStandardOutput(to: output) }
                try Encode.convert(file, xml: false)
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
