import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `archive-tool get`: the value at a jq-style path of a document's readable JSON, found through
/// the mapping's wrappers and `$ref`s (`JSONDocument.value(at:)`).
struct Get: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "The value at a path of a document's readable JSON: get save.plist .teams[1].name",
        discussion: """
            PATH is written as jq writes one: .teams[1].name, ."key with spaces", .["key"], .list[-1] \
            (from the end); . is the whole document. Each step goes through the mapping's wrappers \
            ($array, $set, $dict, $top, nested payloads with --nested) and follows {"$ref": n} to \
            the object with that $id, so a path read off the JSON works whatever class holds each \
            step. A path that leads nowhere exits 2 and says how far it got. With --plain the value \
            is written as the plain view writes it (decode --plain), whole in itself: what it refers \
            to outside itself is written at its first reference.
            """)

    @Argument(help: "Archive, other property list or typedstream, or - for stdin.")
    var file: String

    @Argument(help: "Where the value is: .teams[1].name")
    var path: String

    @Flag(help: "Write a string's text as it is, without quotes or escapes (like jq -r); other values as JSON.")
    var raw = false

    @Flag(help: "Write the value's plain view, for reading (as decode --plain): collections as arrays and objects, values as strings and numbers.")
    var plain = false

    @Flag(help: "Write a data value's bytes themselves ($data, $bytes, $text), not their JSON; not to a terminal unless -o FILE.")
    var bytes = false

    @Option(name: [.customShort("o", allowingJoined: true), .customLong("output")], help: "Write to this file (created or replaced) instead of stdout.")
    var output: String?

    @Flag(help: "Go into data values that hold a keyed archive, a property list or a typedstream (as decode --nested).")
    var nested = false

    @OptionGroup var stack: StackOptions

    func validate() throws {
        if raw, bytes { throw ValidationError("--raw writes text, --bytes writes bytes: give one of them") }
        if plain, bytes { throw ValidationError("--plain writes JSON, --bytes writes bytes: give one of them") }
    }

    func run() throws {
        let path: ReadablePath
        do {
            path = try ReadablePath(parsing: self.path)
        } catch {
            throw ValidationError(error.description)
        }
        let input = try readInput(CommandLineFiles.paths([file], of: Get.self)[0])
        // The value alone where the codec can write it so, else the whole document (always for
        // the plain view: the value's references outside itself are written in it).
        let (document, rest) =
            plain
            ? (try Decode.readableDocument(of: input, nested: nested, stack: stack), path)
            : try Decode.readableValue(of: input, at: path, nested: nested, stack: stack)
        // What is written: the data's bytes, or the value's text and a newline.
        let result: [UInt8]
        if bytes {
            guard let data = try reportingPathFailure({ () throws(JSONDocument.PathFailure) in try document.dataBytes(at: rest) }) else {
                writeAll("archive-tool: the value at \(TerminalText.escaped(path.description)) is not data ($data, $bytes or $text)\n", to: 2)
                throw ExitCode(ExitStatus.notConvertible)
            }
            if output == nil, isatty(1) == 1 {
                writeAll("archive-tool: not writing bytes to a terminal: redirect stdout (> FILE) or pass -o FILE\n", to: 2)
                throw ExitCode(ExitStatus.usage)
            }
            result = data
        } else {
            result = try reportingPathFailure { () throws(JSONDocument.PathFailure) -> [UInt8] in
                if raw, let string = try document.stringText(at: rest) { return string + [UInt8(ascii: "\n")] }
                guard plain else { return try document.valueText(at: rest) + [UInt8(ascii: "\n")] }
                let text = OutputCollector()
                try document.writePlainValue(at: rest, pretty: false, limit: KeyedArchive.maximumOutputSize(forInputSize: input.count)) {
                    text.bytes.append(contentsOf: $0)
                }
                return text.bytes
            }
        }
        // The output file is made only once there is something to write into it.
        if let output { try redirectStandardOutput(to: CommandLineFiles.optionValue(output, named: ["-o", "--output"], of: Get.self)) }
        try writeOutput(result)
        try commitStandardOutput()
    }
}
