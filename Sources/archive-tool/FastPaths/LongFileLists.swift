import ArgumentParser

/// A command that takes a list of files (`decode`, `encode`, `summary`).
protocol FileListCommand: ParsableCommand, OptionsWithValues {
    var files: [String] { get set }
}

/// Long lists of files go around the argument parser. ArgumentParser's parsing of an array
/// argument takes time in the square of its length (every value it appends copies the set of
/// the argument's origins so far): 1,000 files cost about 1 G instructions before the first is
/// read, 4,000 about 7 G, 10,000 tens of seconds — what `decode --output-dir json saves/*` on a
/// folder of small files meets. So the files are taken out of the arguments here, the rest is
/// parsed with the first file alone (the parser checks the options and their combinations as
/// ever), and the command gets the whole list before it is validated again and run.
///
/// Files are what the parser would take as the positional arguments: words that do not begin
/// with `-` (or are `-`, stdin) and do not follow an option that takes a value, and every word
/// after `--`. Anything the split cannot be sure of goes to the parser whole.
enum LongFileLists {
    /// By the names the parser knows them by, spelled here: asking a command for its name
    /// (`_commandName`) costs the parser's reflection, about a million instructions each,
    /// which every other run of the tool would pay.
    static let commands: [(name: String, type: any FileListCommand.Type)] = [("decode", Decode.self), ("encode", Encode.self), ("summary", Summary.self)]

    /// Below this many files the parser takes them itself: its cost is then a few milliseconds.
    static let threshold = 64

    /// Runs the command and exits when `arguments` name one of `commands` with more than
    /// `threshold` files; returns otherwise.
    static func runIfLong(_ arguments: [String]) {
        guard let name = arguments.first,
            let command = commands.first(where: { $0.name == name })?.type,
            let (options, files) = split(arguments.dropFirst(), optionsWithValues: command.optionsWithValues),
            files.count > threshold
        else { return }
        do {
            guard var parsed = try ArchiveTool.parseAsRoot([name] + options + ["--", files[0]]) as? any FileListCommand else { return }
            parsed.files = files
            try parsed.validate()
            try parsed.run()
        } catch {
            ArchiveTool.exit(withError: error)
        }
        ArchiveTool.exit()
    }

    /// The options (with their values) and the files of `arguments`, in order; nil when a word
    /// is one the split cannot place (an option's value missing).
    static func split(_ arguments: ArraySlice<String>, optionsWithValues: [String]) -> (options: [String], files: [String])? {
        guard let (options, files) = positions(arguments, optionsWithValues: optionsWithValues) else { return nil }
        return (options.map { arguments[$0] }, files.map { arguments[$0] })
    }

    /// Where in `arguments` the options (with their values) and the files stand, in order: the
    /// one reading of which word is a file, for the split and for the files' bytes
    /// (`CommandLineFiles`). Nil when a word is one it cannot place (an option's value missing).
    static func positions(_ arguments: ArraySlice<String>, optionsWithValues: [String]) -> (options: [Int], files: [Int])? {
        var options: [Int] = []
        var files: [Int] = []
        var index = arguments.startIndex
        while index < arguments.endIndex {
            let argument = arguments[index]
            if argument == "--" {
                files += (index + 1)..<arguments.endIndex
                break
            }
            if argument == "-" || !argument.hasPrefix("-") {
                files.append(index)
            } else if optionsWithValues.contains(argument) {
                guard index + 1 < arguments.endIndex else { return nil }
                options += [index, index + 1]
                index += 1
            } else {
                options.append(index)
            }
            index += 1
        }
        return (options, files)
    }
}

extension Decode: FileListCommand {
    static let optionsWithValues = ["-o", "--output", "--output-dir", "--jobs", "--max-depth", "--stack-mib"]
}

extension Encode: FileListCommand {
    static let optionsWithValues = ["-o", "--output", "--output-dir", "--jobs"]
}

extension Summary: FileListCommand {
    static let optionsWithValues = ["--stack-mib"]
}
