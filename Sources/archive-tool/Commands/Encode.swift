import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `archive-tool encode`: JSON to a binary or XML archive; large binary archives are written
/// while built; many documents into a folder with `--output-dir` (`BatchRun`).
struct Encode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "JSON → archive on stdout, into a file (-o), or many into a folder (--output-dir); binary unless --xml.",
        discussion: """
            A binary archive is not written to a terminal: redirect stdout, or pass -o FILE (or \
            --force). A binary archive from a document of 8 MiB or more is written while it is \
            built: a refusal (exit 2 or 3) can then come after part of it: an output file is cut \
            back to where it began, a pipe has received the part. With no file, stdin is read \
            (when it is not a terminal). With --output-dir, NAME.json becomes DIR/NAME (DIR/NAME.plist \
            when NAME has no extension), written whole or not at all.
            """)

    @Argument(help: "JSON documents, or - for stdin. Several need --output-dir.")
    var files: [String] = []

    @Flag(help: "Write an XML property list instead of a binary one.")
    var xml = false

    @Option(name: [.customShort("o", allowingJoined: true), .customLong("output")], help: "Write the archive to this file (created or replaced) instead of stdout.")
    var output: String?

    @Flag(help: "Write a binary archive to stdout even when it is a terminal.")
    var force = false

    @Flag(
        name: .customLong("drop-broken"),
        help:
            "Write the archive without what a salvaged decode marked {\"$broken\": …} (a typedstream's group holding a mark, a mark standing as a group), which is refused otherwise."
    )
    var dropBroken = false

    /// Documents from this size on are written while they are encoded (binary only).
    static let streamingThreshold = 8 << 20

    @OptionGroup var batch: BatchOptions

    func validate() throws {
        try batch.validate(files: files, singleOutput: output)
        if files.isEmpty, isatty(0) == 1 { throw ValidationError("give a file, or pipe one in: stdin is a terminal") }
    }

    /// The encoder does not recurse: any depth the JSON parser accepts encodes on any stack.
    func run() throws {
        if let folder = batch.folder(of: Encode.self) {
            let format: PlistFormat = xml ? .xml : .binary
            let inputs = BatchInputs(paths: CommandLineFiles.paths(files, of: Encode.self), recursive: batch.recursive, into: folder, name: Encode.outputName)
            let run = BatchRun(inputs: inputs, verb: "encoded", jobs: batch.jobs ?? usableCores(), stackSize: 1 << 20) { input in
                BatchRun.converting(input, hint: { Hint.encoding(input, error: $0) }) { () throws(CodecError) -> [UInt8] in
                    try Encode.document(input, dropBroken: dropBroken).archive(format: format)
                }
            }
            let status = run.run(to: .folder(folder))
            if status != 0 { throw ExitCode(status) }
            return
        }
        if let output { try redirectStandardOutput(to: CommandLineFiles.optionValue(output, named: ["-o", "--output"], of: Encode.self)) }
        try Encode.convert(CommandLineFiles.paths(files, of: Encode.self).first ?? BytePath("-"), xml: xml, toTerminal: force, dropBroken: dropBroken)
        try commitStandardOutput()
    }

    /// `input` parsed, without what its `$broken` marks stand in when `dropBroken`.
    static func document(_ input: [UInt8], dropBroken: Bool) throws(CodecError) -> JSONDocument {
        let document = try JSONDocument(parsing: input)
        return dropBroken ? try document.droppingBroken() : document
    }

    /// The output's name for a document's file name: `save.plist.json` → `save.plist` (the name
    /// `decode --output-dir` made it from); a name left without an extension gains `.plist`
    /// (`game.json` → `game.plist`, `notes.txt` → `notes.txt.plist`).
    static func outputName(_ name: ArraySlice<UInt8>) -> [UInt8] {
        let json = ".json".utf8
        let stem = name.count > json.count && name.reversed().starts(with: json.reversed()) ? name.dropLast(json.count) : name
        return stem.count != name.count && stem.dropFirst().contains(UInt8(ascii: ".")) ? Array(stem) : Array(stem) + ".plist".utf8
    }

    /// `toTerminal`: write a binary archive even when stdout is a terminal (`--force`), where
    /// it would only garble the screen.
    static func convert(_ file: BytePath, xml: Bool, toTerminal: Bool = false, dropBroken: Bool = false) throws {
        if !xml, !toTerminal, isatty(1) == 1 {
            writeAll("archive-tool: not writing a binary archive to a terminal: redirect stdout (> FILE), pass -o FILE, or --force\n", to: 2)
            throw ExitCode(ExitStatus.usage)
        }
        let input = try readInput(file)
        let hint = { (error: CodecError) in Hint.encoding(input, error: error) }
        let document = try reportingErrors(hint: hint) { () throws(CodecError) -> JSONDocument in try Encode.document(input, dropBroken: dropBroken) }
        guard !xml, input.count >= Encode.streamingThreshold else {
            let archive = try reportingErrors(hint: hint) { () throws(CodecError) -> [UInt8] in
                try document.archive(format: xml ? .xml : .binary)
            }
            return try writeOutput(archive)
        }
        // Large archives go out in pieces as they are built, so they never sit in memory
        // whole. Another thread writes them out meanwhile: the copy into the kernel overlaps
        // encoding, on the core the encoder leaves idle.
        let output = StreamedOutput(descriptor: 1)
        let pipe = ChunkPipe(capacity: 4)
        let writer = startThread(stackSize: 1 << 20) { pipe.drain { output.write($0) } }
        var failure: CodecError?
        do throws(CodecError) {
            defer { pipe.close() }
            // The document is given up: a typedstream lets its index go before writing.
            try (consume document).writeArchive { pipe.push(Array($0)) }
        } catch {
            failure = error
        }
        writer.join()
        try output.conclude(failure, hint: hint)
    }
}
