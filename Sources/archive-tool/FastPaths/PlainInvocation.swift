import ArgumentParser

/// `archive-tool decode FILE`, `archive-tool encode FILE` and either with `-o OUT` (or
/// `--output OUT`), the usual forms, run without the argument parser, with the options'
/// defaults: setting the parser up reflects over every command's options, a fixed cost on
/// every run that is large next to converting a small archive (docs/benchmarks.md, "Start-up
/// and output of `archive-tool`"). Any other arguments, `--help` or another option among them
/// (anything starting with `-` but `-` itself, which is stdin; an `OUT` starting with `-`),
/// go to the parser.
enum PlainInvocation {
    /// Converts and exits if `arguments` are one of the usual forms; returns otherwise.
    static func runIfPlain(_ arguments: [String]) {
        guard arguments.count == 2 || arguments.count == 4, arguments[1] == "-" || !arguments[1].hasPrefix("-") else { return }
        let file = arguments[1]
        // `… FILE -o OUT`: what `run` does with `output`, then the conversion.
        var output: String?
        if arguments.count == 4 {
            guard ["-o", "--output"].contains(arguments[2]), !arguments[3].hasPrefix("-") else { return }
            output = arguments[3]
        }
        let conversion: () throws -> Void
        switch arguments[0] {
        case "decode":
            conversion = {
                if let output { try redirectStandardOutput(to: output) }
                try Decode.convert(
                    file, view: .readable, pretty: false,
                    stackSize: StackOptions.defaultStackMiB << 20, skipDepthCheck: false)
            }
        case "encode":
            conversion = {
                if let output { try redirectStandardOutput(to: output) }
                try Encode.convert(file, xml: false)
            }
        default:
            return
        }
        do {
            try conversion()
        } catch {
            ArchiveTool.exit(withError: error)
        }
        ArchiveTool.exit()
    }
}
