import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `archive-tool encode`: JSON to a binary or XML archive; large binary archives are written while built.
struct Encode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "JSON → archive on stdout or into a file (binary unless --xml).",
        discussion: """
            A binary archive is not written to a terminal: redirect stdout, or pass -o FILE (or \
            --force). A binary archive from a document of 8 MiB or more is written while it is \
            built: a refusal (exit 2 or 3) can then come after part of it: an output file is cut \
            back to where it began, a pipe has received the part.
            """)

    @Argument(help: "JSON document, or - for stdin.")
    var file: String

    @Flag(help: "Write an XML property list instead of a binary one.")
    var xml = false

    @Option(name: [.customShort("o"), .customLong("output")], help: "Write the archive to this file (created or replaced) instead of stdout.")
    var output: String?

    @Flag(help: "Write a binary archive to stdout even when it is a terminal.")
    var force = false

    /// Documents from this size on are written while they are encoded (binary only).
    static let streamingThreshold = 8 << 20

    /// The encoder does not recurse: any depth the JSON parser accepts encodes on any stack.
    func run() throws {
        if let output { try redirectStandardOutput(to: output) }
        try Encode.convert(file, xml: xml, toTerminal: force)
    }

    /// `toTerminal`: write a binary archive even when stdout is a terminal (`--force`), where
    /// it would only garble the screen.
    static func convert(_ file: String, xml: Bool, toTerminal: Bool = false) throws {
        if !xml, !toTerminal, isatty(1) == 1 {
            writeAll("archive-tool: not writing a binary archive to a terminal: redirect stdout (> FILE), pass -o FILE, or --force\n", to: 2)
            throw ExitCode(ExitStatus.usage)
        }
        let input = try readInput(file)
        let hint = { (error: CodecError) in Hint.encoding(input, error: error) }
        let document = try reportingErrors(hint: hint) { () throws(CodecError) -> JSONDocument in try JSONDocument(parsing: input) }
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
        let result = Result { () throws(CodecError) in
            defer { pipe.close() }
            try document.writeArchive { pipe.push(Array($0)) }
        }
        writer.join()
        try output.conclude(result, hint: hint)
    }
}
