import ArgumentParser

/// `archive-tool decode FILE` and `archive-tool encode FILE`, the usual forms, run without
/// the argument parser, with the options' defaults: setting the parser up reflects over
/// every command's options, a fixed cost on every run that is large next to converting a
/// small archive (docs/benchmarks.md, "Start-up and output of `archive-tool`"). Any other
/// arguments, `--help` or an option among them (anything starting with `-` but `-` itself,
/// which is stdin), go to the parser.
enum PlainInvocation {
    /// Converts and exits if `arguments` are one of the usual forms; returns otherwise.
    static func runIfPlain(_ arguments: [String]) {
        guard arguments.count == 2, arguments[1] == "-" || !arguments[1].hasPrefix("-") else { return }
        let file = arguments[1]
        let conversion: () throws -> Void
        switch arguments[0] {
        case "decode":
            conversion = {
                try Decode.convert(
                    file, view: .readable, pretty: false,
                    stackSize: StackOptions.defaultStackMiB << 20, skipDepthCheck: false)
            }
        case "encode":
            conversion = { try Encode.convert(file, xml: false) }
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
