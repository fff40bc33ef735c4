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
        subcommands: [Decode.self, Encode.self, Compare.self, Depth.self])

    /// A large input re-executes the tool for huge pages first (`HugePages`), before any
    /// argument parsing; `decode FILE` and `encode FILE` then run without the parser
    /// (`PlainInvocation`), anything else through it.
    static func main() {
        HugePages.reexecIfWorthIt(arguments: CommandLine.arguments)
        let arguments = Array(CommandLine.arguments.dropFirst())
        PlainInvocation.runIfPlain(arguments)
        main(arguments)
    }
}

/// Options shared by the subcommands.
struct StackOptions: ParsableArguments {
    @Option(name: .customLong("stack-mib"), help: "Stack for decoding, in MiB; sets the deepest archive accepted (exit 3 beyond).")
    var stackMiB = StackOptions.defaultStackMiB

    static let defaultStackMiB = 512

    /// Converts without the depth check, to find where the stack really runs out
    /// (`scripts/measure_stack.sh`); deeper input then crashes the tool.
    @Flag(help: .hidden)
    var skipDepthCheck = false

    var bytes: Int { stackMiB << 20 }

    func validate() throws {
        guard (1...65_536).contains(stackMiB), stackMiB << 20 >= StackBudget.minimumStackSize else {
            throw ValidationError("--stack-mib must be between \(StackBudget.minimumStackSize >> 20) and 65536")
        }
    }
}

struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Archive → JSON on stdout.",
        discussion: """
            The JSON is written while it is produced. Every check but the size limit comes first; \
            a refusal for size (exit 3) can come after part of the JSON: stdout redirected to a \
            file is then cut back to where it began, a pipe has received the part.
            """)

    @Argument(help: "Archive file (binary or XML plist), or - for stdin.")
    var file: String

    @Flag(help: "Write the raw view: the property list itself as JSON, UIDs marked.")
    var raw = false

    @Flag(help: "Indent the JSON (archives up to 1,000 levels deep).")
    var pretty = false

    @Option(name: .customLong("max-depth"), help: "Never nest the JSON deeper than this (objects that would go deeper are written in a top-level $table); at least 1.")
    var maxDepth: Int?

    @Flag(name: .customLong("exact-integers"), help: "Write integers beyond ±(2^53 − 1) as {\"$integer\": \"…\"}, which JSON readers that keep numbers as doubles cannot round.")
    var exactIntegers = false

    @OptionGroup var stack: StackOptions

    func validate() throws {
        if let maxDepth, maxDepth < 1 { throw ValidationError("--max-depth must be at least 1") }
        if raw, maxDepth != nil || exactIntegers { throw ValidationError("--max-depth and --exact-integers shape the readable view, not --raw") }
    }

    func run() throws {
        try Decode.convert(file, view: raw ? .raw : .readable, pretty: pretty, maxDepth: maxDepth, exactIntegers: exactIntegers,
                           stackSize: stack.bytes, skipDepthCheck: stack.skipDepthCheck)
    }

    static func convert(_ file: String, view: ArchiveView, pretty: Bool, maxDepth: Int? = nil, exactIntegers: Bool = false, stackSize: Int, skipDepthCheck: Bool) throws {
        let input = try readInput(file)
        // The conversion thread hands the JSON over in pieces; this thread writes them out
        // meanwhile, so the copy into the kernel overlaps the conversion on a second core.
        let pipe = ChunkPipe(capacity: 4)
        let output = StreamedOutput(descriptor: 1)
        let result = onLargeStack(stackSize, whileRunning: { pipe.drain { output.write($0) } }) { () -> Result<Void, CodecError> in
            defer { pipe.close() }
            return Result { () throws(CodecError) in
                let cores = coreParallelism(stackSize: stackSize)
                let archive = try KeyedArchive(parsing: input, parallelism: cores)
                let plan = try archive.plan(view: view, pretty: pretty, maxDepth: maxDepth, exactIntegers: exactIntegers, parallelism: cores)
                let policy = skipDepthCheck ? DecodePolicy(depthLimit: .max) : DecodePolicy(stackSize: stackSize)
                if let refusal = policy.refusal(depth: plan.depth, pretty: pretty) {
                    throw refused(refusal, stackSize: stackSize)
                }
                try archive.writeJSON(view: view, pretty: pretty, plan: plan, parallelism: cores) { pipe.push(Array($0)) }
            }
        }
        try output.conclude(result)
    }

    /// A decode the policy refuses (`DecodePolicy`), its fix in this tool's flags (exit 3).
    static func refused(_ refusal: DecodePolicy.Refusal, stackSize: Int) -> CodecError {
        switch refusal {
        case let .tooDeep(depth, limit):
            CodecError(.limitExceeded, "the archive's JSON nests \(depth) levels deep; a \(stackSize >> 20) MiB stack converts up to \(limit): raise --stack-mib, or pass --max-depth \(refusal.suggestedMaxDepth) to move the deepest objects into a top-level $table", found: depth, limit: limit)
        case let .tooDeepToIndent(depth, limit):
            CodecError(.limitExceeded, "the archive nests \(depth) levels deep; indented output is limited to \(limit) levels (its size grows with the square of the depth): leave out --pretty", found: depth, limit: limit)
        }
    }
}

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

struct Compare: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Whether two archives hold the same object graph (exit 0) or not (exit 1, first difference on stdout).",
        discussion: "UID numbering, object order, binary versus XML and string storage may differ; classes, keys, values, sharing and cycles may not.")

    @Argument(help: "First archive, or - for stdin.")
    var first: String

    @Argument(help: "Second archive.")
    var second: String

    func run() throws {
        let (left, right) = (try readInput(first), try readInput(second))
        let difference = try reportingErrors { () throws(CodecError) -> String? in
            try KeyedArchive(parsing: left).difference(from: KeyedArchive(parsing: right))
        }
        if let difference {
            writeAll("\(difference)\n", to: 1)
            throw ExitCode(1)
        }
    }
}

struct Depth: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "How deep converting FILE recurses, and the stack that takes.",
        discussion: "For an archive: the JSON nesting of its readable and raw views (the most arrays and objects open at once, what JSON parsers limit), and the stack decoding it takes (the service answers 413 above the limit its --stack-size gives). For a JSON document: its nesting. Measured without recursion.")

    @Argument(help: "Archive or JSON document, or - for stdin.")
    var file: String

    func run() throws {
        let input = try readInput(file)
        func line(_ what: String, _ depth: Int, bytesPerLevel: Int) -> String {
            let stack = StackBudget.reserveBytes + depth * bytesPerLevel
            return "\(what): depth \(depth), needs a stack of \((stack + (1 << 20) - 1) >> 20) MiB\n"
        }
        let text = try reportingErrors { () throws(CodecError) -> String in
            if input.first(where: { ![0x20, 0x09, 0x0A, 0x0D].contains($0) }).map({ $0 == UInt8(ascii: "{") || $0 == UInt8(ascii: "[") }) ?? false {
                let document = try JSONDocument(parsing: input)
                return "encode: depth \(document.depth); the encoder does not recurse, any stack will do\n"
            }
            let archive = try KeyedArchive(parsing: input)
            return line("decode", archive.depth(of: .readable), bytesPerLevel: StackBudget.bytesPerLevel)
                + line("decode --raw", archive.depth(of: .raw), bytesPerLevel: StackBudget.bytesPerLevel)
        }
        writeAll(text, to: 1)
    }
}

/// Prints a codec error and exits 2, or 3 when a limit (depth, size) was exceeded.
private func reportingErrors<T>(_ body: () throws(CodecError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        writeAll("archive-tool: \(error)\n", to: 2)
        throw ExitCode(error.kind == .limitExceeded || error.kind == .depthBoundTooSmall ? 3 : 2)
    }
}

private func writeOutput(_ bytes: [UInt8]) throws {
    let output = StreamedOutput(descriptor: 1)
    output.write(bytes)
    try output.check()
}

func writeAll(_ text: String, to descriptor: Int32) {
    Array(text.utf8).withUnsafeBytes { _ = writeAll($0, to: descriptor) }
}

/// Writes the whole buffer; returns errno on failure (0 on success).
private func writeAll(_ buffer: UnsafeRawBufferPointer, to descriptor: Int32) -> Int32 {
    var offset = 0
    while offset < buffer.count {
        let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
        if written < 0 {
            if errno == EINTR { continue }
            return errno
        }
        offset += written
    }
    return 0
}

/// stdout for output written in pieces. A write error is kept and reported once the
/// conversion is over (exit 1), and further pieces are dropped. When stdout is a regular
/// file (`decode f > out.json`), a refused run (`conclude`) cuts it back to where this run began, so a
/// conversion refused after its first pieces went out leaves no truncated JSON behind;
/// a pipe cannot take back what it passed on.
final class StreamedOutput: @unchecked Sendable {
    private let descriptor: Int32
    /// Offset in the file where this run's output starts; nil when stdout is not a file.
    private let start: off_t?
    private var failure: Int32 = 0

    init(descriptor: Int32) {
        self.descriptor = descriptor
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG {
            // Appending (`>>`) writes at the end whatever the offset says.
            let appending = fcntl(descriptor, F_GETFL) & O_APPEND != 0
            let position = appending ? status.st_size : lseek(descriptor, 0, SEEK_CUR)
            start = position >= 0 ? position : nil
        } else {
            start = nil
        }
    }

    func write(_ bytes: [UInt8]) {
        bytes.withUnsafeBufferPointer { write($0) }
    }

    func write(_ bytes: UnsafeBufferPointer<UInt8>) {
        guard failure == 0 else { return }
        failure = writeAll(UnsafeRawBufferPointer(bytes), to: descriptor)
    }

    private func discard() {
        guard let start, ftruncate(descriptor, start) == 0 else { return }
        _ = lseek(descriptor, start, SEEK_SET)
    }

    /// Ends a run whose output went out in pieces: a refused conversion's partial output is
    /// discarded (as far as stdout allows) and the error reported, then write errors are.
    func conclude(_ result: Result<Void, CodecError>) throws {
        if case .failure = result { discard() }
        try reportingErrors { () throws(CodecError) in try result.get() }
        try check()
    }

    func check() throws {
        guard failure != 0 else { return }
        writeAll("archive-tool: cannot write the output: \(String(cString: strerror(failure)))\n", to: 2)
        throw ExitCode(1)
    }
}
