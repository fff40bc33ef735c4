#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A command whose files are taken from the command line as bytes (`CommandLineFiles`): the
/// options of its that take a value (the word after them is theirs, not a positional argument).
protocol OptionsWithValues {
    /// Every spelling of every option that takes a value, `-o` and `--output` alike.
    /// `LongFileListsTests` holds it to the command's help.
    static var optionsWithValues: [String] { get }
}

/// The files a command was given, as the bytes the shell passed. Swift makes the arguments text
/// (`CommandLine.arguments`, which the parser reads) by replacing every byte that is not UTF-8
/// with U+FFFD, so a name in Latin-1 would reach the command as another name. The bytes are
/// taken from `CommandLine.unsafeArgv` instead, at the places the files stand in it: the words
/// that `LongFileLists.positions` reads as files (the one reading of which word is a file:
/// after `--`, not an option, not an option's value).
///
/// A command's files are its first positional arguments (all of them for `decode`, the first
/// for `get`). A file takes the bytes of its word only when that word, as text, is the file
/// exactly; if the words and the files do not pair (a form the reading does not know), each
/// file is its text,
/// as before: a name that is not UTF-8 is then "no such file", with a note that says why
/// (`readWholeFile`). Linear in the length of the command line.
enum CommandLineFiles {
    /// `files`, `command`'s first positional arguments as it parsed them from this process's
    /// arguments, as bytes.
    static func paths(_ files: [String], of command: any OptionsWithValues.Type) -> [BytePath] {
        let words = CommandLine.arguments
        // words[0] is the tool, words[1] the command; the files are among the rest.
        guard words.count > 2, Int(CommandLine.argc) == words.count,
            let positions = LongFileLists.positions(words.dropFirst(2), optionsWithValues: command.optionsWithValues)?.files,
            positions.count >= files.count
        else { return files.map(BytePath.init) }
        return zip(files, positions).map { file, position in
            guard words[position].utf8.elementsEqual(file.utf8), let word = CommandLine.unsafeArgv[position] else { return BytePath(file) }
            return BytePath(UnsafeRawBufferPointer(start: word, count: strlen(word)))
        }
    }

    /// `value`, as `command` parsed it for the option spelled `names` (`-o`, `--output`), as
    /// bytes: the last word after one of them (or after `--name=`, or joined to a short name,
    /// `-oFILE`) whose text is `value` exactly, else `value`'s UTF-8.
    static func optionValue(_ value: String, named names: [String], of command: any OptionsWithValues.Type) -> BytePath {
        let words = CommandLine.arguments
        guard words.count > 2, Int(CommandLine.argc) == words.count,
            let options = LongFileLists.positions(words.dropFirst(2), optionsWithValues: command.optionsWithValues)?.options
        else { return BytePath(value) }
        var found: BytePath?
        var index = 0
        while index < options.count {
            let position = options[index]
            let word = words[position]
            if command.optionsWithValues.contains(word) {
                // An option and its value, the next position: `LongFileLists.positions` records
                // the two together (it refuses an option with no word after it).
                let valuePosition = options[index + 1]
                if names.contains(word), words[valuePosition].utf8.elementsEqual(value.utf8), let raw = CommandLine.unsafeArgv[valuePosition] {
                    found = BytePath(UnsafeRawBufferPointer(start: raw, count: strlen(raw)))
                }
                index += 2
                continue
            }
            // `--name=value` or `-nvalue`, one word.
            if let name = names.first(where: { $0.hasPrefix("--") && word.hasPrefix($0 + "=") }),
                word.utf8.dropFirst(name.utf8.count + 1).elementsEqual(value.utf8), let raw = CommandLine.unsafeArgv[position]
            {
                found = BytePath(UnsafeRawBufferPointer(start: raw, count: strlen(raw)).dropFirst(name.utf8.count + 1))
            } else if let name = names.first(where: { !$0.hasPrefix("--") && word.count > $0.count && word.hasPrefix($0) }),
                word.utf8.dropFirst(name.utf8.count).elementsEqual(value.utf8), let raw = CommandLine.unsafeArgv[position]
            {
                found = BytePath(UnsafeRawBufferPointer(start: raw, count: strlen(raw)).dropFirst(name.utf8.count))
            }
            index += 1
        }
        return found ?? BytePath(value)
    }
}

extension Get: OptionsWithValues {
    static let optionsWithValues = ["-o", "--output", "--stack-mib"]
}

/// `set`, `insert` and `remove`: their options are `EditOptions`'s.
extension EditOptions: OptionsWithValues {
    static let optionsWithValues = ["-o", "--output", "--stack-mib"]
}

extension Compare: OptionsWithValues {
    static let optionsWithValues: [String] = []
}

extension Depth: OptionsWithValues {
    static let optionsWithValues: [String] = []
}
