import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `archive-tool decode`: an archive to JSON, on a stack of `--stack-mib`, written while it is
/// produced; many archives into a folder with `--output-dir` (`BatchRun`).
struct Decode: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Archive → JSON on stdout, into a file (-o), or many archives into a folder (--output-dir).",
        discussion: """
            The JSON is written while it is produced. Every check but the size limit comes first; \
            a refusal for size (exit 3) can come after part of the JSON: stdout redirected to a \
            file (or -o FILE) is then cut back to where it began, a pipe has received the part. \
            With no file, stdin is read (when it is not a terminal). With --output-dir, each file \
            given becomes DIR/NAME.json, written whole or not at all.
            """)

    @Argument(
        help:
            "Archives, other property lists (binary or XML) or typedstreams, or - for stdin; a plain property list reads as {\"$propertyList\": …}, a typedstream as {\"$typedstream\": …}. Several need --output-dir."
    )
    var files: [String] = []

    @Option(name: [.customShort("o", allowingJoined: true), .customLong("output")], help: "Write the JSON to this file (created or replaced) instead of stdout.")
    var output: String?

    @OptionGroup var batch: BatchOptions

    @Flag(
        help:
            "Write one JSON line per file on stdout, in the order given: {\"file\": …, \"document\": …}, or {\"file\": …, \"error\": …} with the problem document the service would send (a name that is not UTF-8 adds \"fileBase64\", its exact bytes); takes --recursive and --jobs, not --pretty."
    )
    var ndjson = false

    @Flag(help: "Write the raw view: the property list itself as JSON, UIDs marked.")
    var raw = false

    @Flag(
        help:
            "Write the plain view, for reading (jq '.teams[0].wins'), one way: collections as arrays and objects, values as strings and numbers, a document as its root value; only $class (not for Foundation's values), $id and $ref remain. Takes --nested."
    )
    var plain = false

    @Flag(help: "Indent the JSON (archives up to 1,000 levels deep).")
    var pretty = false

    @Option(name: .customLong("max-depth"), help: "Never nest the JSON deeper than this (objects that would go deeper are written in a top-level $table); at least 1.")
    var maxDepth: Int?

    @Flag(name: .customLong("exact-integers"), help: "Write integers beyond ±(2^53 − 1) as {\"$integer\": \"…\"}, which JSON readers that keep numbers as doubles cannot round.")
    var exactIntegers = false

    @Flag(
        name: .customLong("exact-numbers"),
        help: "Also write every real without a fraction as {\"$real\": \"1.0\"} (and -0.0), so that the JSON keeps its meaning through jq, node and Python (implies --exact-integers).")
    var exactNumbers = false

    @Flag(help: "Write data values that hold a keyed archive, a property list or a typedstream decoded, in place ({\"$data\": {\"$keyedArchive\": …}}), recursively; encode writes them back.")
    var nested = false

    @Flag(
        help:
            "Read a damaged typedstream as far as it goes: what could not be read is marked in place, {\"$broken\": {\"offset\": N, \"reason\": …, \"rest\": {\"$data\": …}}}, and the tool exits 5 (a whole file exits 0). A damaged binary property list has each object it could not read marked so, a keyed archive whose graph is broken each entry or reference. One file, readable or raw view; other formats are read as without it."
    )
    var salvage = false

    @OptionGroup var stack: StackOptions

    func validate() throws {
        try batch.validate(files: files, singleOutput: output, lines: ndjson)
        if ndjson, pretty { throw ValidationError("--ndjson writes each document on one line: leave out --pretty") }
        if files.isEmpty, isatty(0) == 1 { throw ValidationError("give a file, or pipe one in: stdin is a terminal") }
        if let maxDepth, maxDepth < 1 { throw ValidationError("--max-depth must be at least 1") }
        if salvage, batch.isBatch || ndjson || plain || nested {
            throw ValidationError("--salvage reads one file to the readable or raw view: leave out --output-dir, --ndjson, --plain and --nested")
        }
        if let conflict = Self.viewConflict(raw: raw, plain: plain, maxDepth: maxDepth != nil, numbers: exactIntegers || exactNumbers, nested: nested) {
            throw ValidationError(conflict)
        }
    }

    /// Why a view and options that shape another view do not go together, or nil: the one
    /// rule of `validate` and of the forms run without the parser (`PlainInvocation`).
    static func viewConflict(raw: Bool, plain: Bool, maxDepth: Bool, numbers: Bool, nested: Bool) -> String? {
        if raw, maxDepth || numbers || nested {
            return "--max-depth, --exact-integers, --exact-numbers and --nested shape the readable view, not --raw"
        }
        if plain, raw { return "--plain and --raw are two views: give one" }
        if plain, maxDepth || numbers {
            return "--max-depth, --exact-integers and --exact-numbers shape the lossless view, not --plain (which writes numbers as numbers and takes --nested)"
        }
        return nil
    }

    func run() throws {
        let shape: Shape =
            plain ? .plain : .lossless(raw ? .raw : .readable, maxDepth: maxDepth, numbers: NumberWrapping(exactIntegers: exactIntegers, exactNumbers: exactNumbers))
        if batch.isBatch || ndjson {
            let (pretty, nested, stackSize, skipDepthCheck) = (pretty, nested, stack.bytes, stack.skipDepthCheck)
            let folder = batch.folder(of: Decode.self)
            let inputs = BatchInputs(paths: CommandLineFiles.paths(files, of: Decode.self), recursive: batch.recursive, into: folder ?? BytePath(".")) {
                Array($0) + ".json".utf8
            }
            let run = BatchRun(inputs: inputs, verb: "decoded", jobs: batch.jobs ?? usableCores(), stackSize: stackSize) { input in
                BatchRun.converting(input, hint: { Hint.decoding(input, error: $0) }) { () throws(CodecError) -> [UInt8] in
                    try Decode.json(of: input, as: shape, pretty: pretty, nested: nested, stackSize: stackSize, skipDepthCheck: skipDepthCheck)
                }
            }
            if let output { try redirectStandardOutput(to: CommandLineFiles.optionValue(output, named: ["-o", "--output"], of: Decode.self)) }
            let status = run.run(to: folder.map(BatchRun.Destination.folder) ?? .lines)
            try commitStandardOutput()
            if status != 0 { throw ExitCode(status) }
            return
        }
        if let output { try redirectStandardOutput(to: CommandLineFiles.optionValue(output, named: ["-o", "--output"], of: Decode.self)) }
        let breaks = try Decode.convert(
            CommandLineFiles.paths(files, of: Decode.self).first ?? BytePath("-"), as: shape, pretty: pretty, nested: nested, stackSize: stack.bytes,
            skipDepthCheck: stack.skipDepthCheck, salvage: salvage)
        try commitStandardOutput()
        if breaks > 0 {
            writeAll("archive-tool: salvaged: \(breaks) place\(breaks == 1 ? "" : "s") could not be read, marked $broken in the JSON\n", to: 2)
            throw ExitCode(ExitStatus.salvaged)
        }
    }

    /// What a decode writes: the lossless view (readable or raw, shaped by its options), or
    /// the plain view.
    enum Shape {
        case lossless(ArchiveView, maxDepth: Int?, numbers: NumberWrapping)
        case plain
    }

    /// Writes `input` decoded as `shape` into `sink`, with a newline after compact text (as a
    /// text file ends): parsed and planned with the passes of a large input spread over the
    /// cores (a small file's run on the calling thread alone, so a large save among many small
    /// files takes about what it takes alone), refused for depth as a stack of `stackSize`
    /// admits. The one decode of `decode`, its batches, and the commands that read the
    /// decoded document (`readableDocument`).
    /// `salvage`: a damaged document is read as far as it goes (`Archive.init(parsing:…salvaging:)`);
    /// returns how many places it marked `$broken` (0 without `salvage`).
    @discardableResult
    static func write(
        _ input: [UInt8], as shape: Shape, pretty: Bool, nested: Bool, stackSize: Int, skipDepthCheck: Bool, salvage: Bool = false,
        to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void
    ) throws(CodecError) -> Int {
        var breaks = 0
        let cores = coreParallelism(stackSize: stackSize, inputSize: input.count)
        let policy = skipDepthCheck ? DecodePolicy(depthLimit: .max) : DecodePolicy(stackSize: stackSize)
        switch shape {
        case .lossless(let view, let maxDepth, let numbers):
            let archive = try Archive(parsing: input, view: view, parallelism: cores, salvaging: salvage)
            breaks = archive.breaks
            let plan = try archive.plan(
                view: view, pretty: pretty, maxDepth: maxDepth, numbers: numbers, parallelism: cores, nested: nested ? policy : nil,
                depthLimit: policy.nestingLimit(pretty: pretty))
            if let refusal = policy.refusal(depth: plan.depth, pretty: pretty) { throw refused(refusal, stackSize: stackSize) }
            try archive.writeJSON(view: view, pretty: pretty, plan: plan, parallelism: cores, to: sink)
        case .plain:
            let archive = try Archive(parsing: input, parallelism: cores)
            let plan = try archive.plainViewPlan(parallelism: cores, nested: nested ? policy : nil, depthLimit: policy.nestingLimit(pretty: pretty))
            if let refusal = policy.refusal(depth: plan.depth, pretty: pretty) { throw refused(refusal, stackSize: stackSize, plain: true) }
            try archive.writePlainJSON(pretty: pretty, plan: plan, parallelism: cores, to: sink)
        }
        // Indented text ends with a newline already.
        if !pretty { [UInt8(ascii: "\n")].withUnsafeBufferPointer(sink) }
        return breaks
    }

    /// `input` decoded as `shape`, whole (a batch's job): `write`'s text.
    static func json(of input: [UInt8], as shape: Shape, pretty: Bool, nested: Bool, stackSize: Int, skipDepthCheck: Bool) throws(CodecError) -> [UInt8] {
        let text = OutputCollector()
        try write(input, as: shape, pretty: pretty, nested: nested, stackSize: stackSize, skipDepthCheck: skipDepthCheck) {
            text.bytes.append(contentsOf: $0)
        }
        return text.bytes
    }

    /// `input`'s readable JSON (compact, numbers as decode writes them by default) parsed, for
    /// the commands that read a value in it (`get`) or change one (`set`, `insert`, `remove`);
    /// a codec error is reported as `reportingErrors` does.
    static func readableDocument(of input: [UInt8], nested: Bool, stack: StackOptions) throws -> JSONDocument {
        let (stackSize, skipDepthCheck) = (stack.bytes, stack.skipDepthCheck)
        return try reportingErrors(hint: { Hint.decoding(input, error: $0) }) { () throws(CodecError) -> JSONDocument in
            // The writer recurses once per level: on a thread with the stack the depth was checked against.
            try onLargeStack(stackSize) { () -> Result<JSONDocument, CodecError> in
                Result { () throws(CodecError) -> JSONDocument in
                    let json = try json(
                        of: input, as: .lossless(.readable, maxDepth: nil, numbers: .nonFinite), pretty: false, nested: nested, stackSize: stackSize,
                        skipDepthCheck: skipDepthCheck)
                    return try JSONDocument(parsing: json)
                }
            }.get()
        }
    }

    /// The value at `path` of `input`'s readable JSON (compact, numbers as decode writes them
    /// by default), for `get`: a document whose root is that value when the codec writes it
    /// without the rest of the document (`Archive.readableValueDocument`), with the path left
    /// to follow in it (`.`); else the whole document parsed, with `path`. The archive is read
    /// once; it is placed whole only when the value is not found before (`valueDocumentBeforePlacement`);
    /// a codec error is reported as `reportingErrors` does.
    static func readableValue(of input: [UInt8], at path: ReadablePath, nested: Bool, stack: StackOptions) throws -> (document: JSONDocument, path: ReadablePath) {
        if nested { return (try readableDocument(of: input, nested: nested, stack: stack), path) }
        let stackSize = stack.bytes
        let skipDepthCheck = stack.skipDepthCheck
        return try reportingErrors(hint: { Hint.decoding(input, error: $0) }) { () throws(CodecError) -> (document: JSONDocument, path: ReadablePath) in
            // The writers recurse once per level: on a thread with the stack the depth was checked against.
            try onLargeStack(stackSize) { () -> Result<(document: JSONDocument, path: ReadablePath), CodecError> in
                Result { () throws(CodecError) -> (document: JSONDocument, path: ReadablePath) in
                    let cores = coreParallelism(stackSize: stackSize, inputSize: input.count)
                    let policy = skipDepthCheck ? DecodePolicy(depthLimit: .max) : DecodePolicy(stackSize: stackSize)
                    let archive = try Archive(parsing: input, parallelism: cores)
                    // Most values need no placement of the whole document: tried first.
                    if let value = try archive.valueDocumentBeforePlacement(
                        at: path, numbers: .nonFinite, depthLimit: policy.nestingLimit(pretty: false), parallelism: cores, hold: nil)
                    {
                        return (value, ReadablePath(steps: []))
                    }
                    let plan = try archive.plan(
                        view: .readable, pretty: false, numbers: .nonFinite, parallelism: cores, depthLimit: policy.nestingLimit(pretty: false))
                    if let refusal = policy.refusal(depth: plan.depth, pretty: false) { throw refused(refusal, stackSize: stackSize) }
                    if let value = try archive.readableValueDocument(at: path, plan: plan, hold: nil) { return (value, ReadablePath(steps: [])) }
                    return (try archive.decodedDocument(view: .readable, plan: plan, parallelism: cores, hold: nil) { _ in 0 }, path)
                }
            }.get()
        }
    }

    /// `file` decoded as `shape` on stdout, on a stack of `stackSize` (the writers recurse
    /// once per level).
    /// Returns how many places a `salvage` marked `$broken`.
    @discardableResult
    static func convert(_ file: BytePath, as shape: Shape, pretty: Bool, nested: Bool = false, stackSize: Int, skipDepthCheck: Bool, salvage: Bool = false) throws -> Int {
        let input = try readInput(file)
        // The conversion thread hands the JSON over in pieces; this thread writes them out
        // meanwhile, so the copy into the kernel overlaps the conversion on a second core.
        let pipe = ChunkPipe(capacity: 4)
        let output = StreamedOutput(descriptor: 1)
        let breaks = BreakCount()
        let failure = onLargeStack(stackSize, whileRunning: { pipe.drain { output.write($0) } }) { () -> CodecError? in
            defer { pipe.close() }
            do throws(CodecError) {
                breaks.value = try write(input, as: shape, pretty: pretty, nested: nested, stackSize: stackSize, skipDepthCheck: skipDepthCheck, salvage: salvage) {
                    pipe.push(Array($0))
                }
                return nil
            } catch {
                return error
            }
        }
        try output.conclude(failure) { Hint.decoding(input, error: $0) }
        return breaks.value
    }

    /// The conversion thread's count of `$broken` marks, read once it has ended.
    private final class BreakCount: @unchecked Sendable {
        var value = 0
    }

    /// A decode the policy refuses (`DecodePolicy`), its fix in this tool's flags (exit 3).
    static func refused(_ refusal: DecodePolicy.Refusal, stackSize: Int, plain: Bool = false) -> CodecError {
        switch refusal {
        case .tooDeep(let depth, let limit) where plain:
            CodecError(
                .limitExceeded,
                "the archive's JSON nests \(depth) levels deep; a \(stackSize >> 20) MiB stack converts up to \(limit): raise --stack-mib (the plain view takes no --max-depth)",
                found: depth, limit: limit)
        case .tooDeep(let depth, let limit):
            CodecError(
                .limitExceeded,
                "the archive's JSON nests \(depth) levels deep; a \(stackSize >> 20) MiB stack converts up to \(limit): raise --stack-mib, or pass --max-depth \(refusal.suggestedMaxDepth) to move the deepest objects into a top-level $table",
                found: depth, limit: limit)
        case .tooDeepToIndent(let depth, let limit):
            CodecError(
                .limitExceeded, "the archive nests \(depth) levels deep; indented output is limited to \(limit) levels (its size grows with the square of the depth): leave out --pretty", found: depth,
                limit: limit)
        }
    }
}
