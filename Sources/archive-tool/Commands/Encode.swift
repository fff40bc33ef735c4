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
        abstract: "JSON → archive on stdout (binary unless --xml).",
        discussion: """
            A binary archive from a document of 8 MiB or more is written while it is built: a \
            refusal (exit 2 or 3) can then come after part of it: stdout redirected to a file is \
            cut back to where it began, a pipe has received the part.
            """)

    @Argument(help: "JSON document, or - for stdin.")
    var file: String

    @Flag(help: "Write an XML property list instead of a binary one.")
    var xml = false

    /// Documents from this size on are written while they are encoded (binary only).
    static let streamingThreshold = 8 << 20

    /// The encoder does not recurse: any depth the JSON parser accepts encodes on any stack.
    func run() throws {
        try Encode.convert(file, xml: xml)
    }

    static func convert(_ file: String, xml: Bool) throws {
        let input = try readInput(file)
        let document = try reportingErrors { () throws(CodecError) -> JSONDocument in try JSONDocument(parsing: input) }
        guard !xml, input.count >= Encode.streamingThreshold else {
            let archive = try reportingErrors { () throws(CodecError) -> [UInt8] in
                try document.archive(format: xml ? .xml : .binary)
            }
            return try writeOutput(archive)
        }
        // Large archives go out in pieces as they are built, so they never sit in memory
        // whole. Another thread writes them out meanwhile: the copy into the kernel (18-115
        // ms for the 32 MB game save into a file here) overlaps encoding, on the core the
        // encoder leaves idle.
        let output = StreamedOutput(descriptor: 1)
        let pipe = ChunkPipe(capacity: 4)
        let writer = startThread(stackSize: 1 << 20) { pipe.drain { output.write($0) } }
        let result = Result { () throws(CodecError) in
            defer { pipe.close() }
            try document.writeArchive { pipe.push(Array($0)) }
        }
        writer.join()
        try output.conclude(result)
    }
}
