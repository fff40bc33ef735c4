import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `archive-tool set`, `insert` and `remove`: one value of a document changed at a jq-style
/// path, as Apple's `plutil -replace / -insert / -remove` change a property list, for keyed
/// archives, other property lists and typedstreams alike. The document is decoded to its
/// readable JSON, changed there (`JSONDocument.edited(at:_:)`) and encoded again in the
/// input's own format (binary or XML property list, typedstream), so that everything else is
/// equivalent: `archive-tool compare` then shows that one difference.
struct SetValue: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "set",
        abstract: "Change the value at a path: set save.plist .teams[1].name '\"Bears\"' -o new.plist",
        discussion: EditOptions.discussion)

    @OptionGroup var edit: EditOptions

    @Argument(help: "The new value as JSON in the mapping (plain JSON reads as immutable Foundation values): '\"text\"', 3, '{\"$date\": \"2024-01-01T00:00:00Z\"}'.")
    var json: String

    func run() throws { try edit.run(.set(json: Array(json.utf8))) }
}

struct InsertValue: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "insert",
        abstract: "Add a value: insert save.plist .teams[0].players[2] '{...}' -o new.plist (before that element), or a new key",
        discussion: EditOptions.discussion)

    @OptionGroup var edit: EditOptions

    @Argument(help: "The value to add, as JSON in the mapping.")
    var json: String

    func run() throws { try edit.run(.insert(json: Array(json.utf8))) }
}

struct RemoveValue: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Take away the element, key or entry at a path: remove save.plist .teams[1] -o new.plist",
        discussion: EditOptions.discussion)

    @OptionGroup var edit: EditOptions

    func run() throws { try edit.run(.remove) }
}

/// What `set`, `insert` and `remove` share: the file, the path, where the result goes.
struct EditOptions: ParsableArguments {
    static let discussion = """
        PATH is written as jq writes one and found as get finds it (through $array, $set, $dict, \
        $top and, with --nested, nested payloads; {"$ref": n} followed on the way). The last step \
        names a place: an element ([n]; insert puts the value before it, [count] after the last), \
        a key (insert adds it; it must not be there yet), or a $dict entry. A {"$ref": n} at that \
        place is replaced or removed itself, the shared object staying for its other places; a \
        place that holds an object other places refer to is refused (change its members instead). \
        The result is written in the input's format (binary or XML property list, typedstream) to \
        -o FILE or to stdout when that is not a terminal.
        """

    @Argument(help: "Archive, other property list or typedstream, or - for stdin.")
    var file: String

    @Argument(help: "The place to change: .teams[1].name")
    var path: String

    @Option(name: [.customShort("o", allowingJoined: true), .customLong("output")], help: "Write the result to this file (created or replaced) instead of stdout.")
    var output: String?

    @Flag(help: "Go into data values that hold a keyed archive, a property list or a typedstream (as decode --nested); they are encoded back as such.")
    var nested = false

    @OptionGroup var stack: StackOptions

    func run(_ edit: PathEdit) throws {
        let path: ReadablePath
        do {
            path = try ReadablePath(parsing: self.path)
        } catch {
            throw ValidationError(error.description)
        }
        if output == nil, isatty(1) == 1 {
            writeAll("archive-tool: not writing an archive to a terminal: redirect stdout (> FILE) or pass -o FILE\n", to: 2)
            throw ExitCode(ExitStatus.usage)
        }
        let input = try readInput(CommandLineFiles.paths([file], of: EditOptions.self)[0])
        let document = try Decode.readableDocument(of: input, nested: nested, stack: stack)
        let changed = try reportingPathFailure { () throws(JSONDocument.PathFailure) in try document.edited(at: path, edit) }
        let format: PlistFormat = InputKind(of: input) == .xmlPropertyList ? .xml : .binary
        let result = try reportingErrors { () throws(CodecError) -> [UInt8] in
            try JSONDocument(parsing: changed).archive(format: format)
        }
        if let output { try redirectStandardOutput(to: CommandLineFiles.optionValue(output, named: ["-o", "--output"], of: EditOptions.self)) }
        try writeOutput(result)
        try commitStandardOutput()
    }
}
