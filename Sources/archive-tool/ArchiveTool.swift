import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `archive-tool`: converts NSKeyedArchiver archives to JSON and back on the command line.
@main
struct ArchiveTool: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "archive-tool",
        abstract: "Convert NSKeyedArchiver archives (binary or XML plists) to JSON and back.",
        subcommands: [Decode.self, Encode.self])
}

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "Archive → JSON on stdout.")

    @Argument(help: "Archive file (binary or XML plist), or - for stdin.")
    var file: String

    @Flag(help: "Write the raw view: the property list itself as JSON, UIDs marked.")
    var raw = false

    @Flag(help: "Indent the JSON.")
    var pretty = false

    func run() throws {
        let input = try readInput(file)
        let archive = try reportingErrors { () throws(CodecError) in try KeyedArchive(parsing: input) }
        writeOutput(archive.json(view: raw ? .raw : .readable, pretty: pretty))
    }
}

struct Encode: ParsableCommand {
    static let configuration = CommandConfiguration(abstract: "JSON → archive on stdout (binary unless --xml).")

    @Argument(help: "JSON document, or - for stdin.")
    var file: String

    @Flag(help: "Write an XML property list instead of a binary one.")
    var xml = false

    func run() throws {
        let input = try readInput(file)
        let output = try reportingErrors { () throws(CodecError) -> [UInt8] in
            try JSONDocument(parsing: input).archive(format: xml ? .xml : .binary)
        }
        writeOutput(output)
    }
}

/// The tool runs on the main thread, whose stack (8 MiB by default, see `ulimit -s`) bounds
/// the recursion of the converters; inputs nested deeper than the parsers allow are refused.
private func reportingErrors<T>(_ body: () throws(CodecError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        writeAll("archive-tool: \(error)\n", to: 2)
        throw ExitCode(error.kind == .limitExceeded ? 3 : 2)
    }
}

private func readInput(_ path: String) throws -> [UInt8] {
    let descriptor = path == "-" ? 0 : open(path, O_RDONLY)
    guard descriptor >= 0 else {
        writeAll("archive-tool: cannot open \(path): \(String(cString: strerror(errno)))\n", to: 2)
        throw ExitCode(1)
    }
    defer { if descriptor != 0 { close(descriptor) } }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 20)
    while true {
        let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
        if count < 0 && errno == EINTR { continue }
        guard count >= 0 else {
            writeAll("archive-tool: cannot read \(path): \(String(cString: strerror(errno)))\n", to: 2)
            throw ExitCode(1)
        }
        if count == 0 { break }
        bytes.append(contentsOf: chunk[0..<count])
    }
    return bytes
}

private func writeOutput(_ bytes: [UInt8]) {
    bytes.withUnsafeBytes { writeAll($0, to: 1) }
}

private func writeAll(_ text: String, to descriptor: Int32) {
    Array(text.utf8).withUnsafeBytes { writeAll($0, to: descriptor) }
}

private func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) {
    var offset = 0
    while offset < buffer.count {
        let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            return
        }
        offset += written
    }
}
