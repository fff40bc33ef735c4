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

    @Option(name: [.customShort("o"), .customLong("output")], help: "Write the JSON to this file (created or replaced) instead of stdout.")
    var output: String?

    @OptionGroup var batch: BatchOptions

    @Flag(
        help:
            "Write one JSON line per file on stdout, in the order given: {\"file\": …, \"document\": …}, or {\"file\": …, \"error\": …} with the problem document the service would send; takes --recursive and --jobs, not --pretty."
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

    @OptionGroup var stack: StackOptions

    func validate() throws {
        try batch.validate(files: files, singleOutput: output, lines: ndjson)
        if ndjson, pretty { throw ValidationError("--ndjson writes each document on one line: leave out --pretty") }
        if files.isEmpty, isatty(0) == 1 { throw ValidationError("give a file, or pipe one in: stdin is a terminal") }
        if let maxDepth, maxDepth < 1 { throw ValidationError("--max-depth must be at least 1") }
        if raw, maxDepth != nil || exactIntegers || exactNumbers || nested {
            throw ValidationError("--max-depth, --exact-integers, --exact-numbers and --nested shape the readable view, not --raw")
        }
        if plain, raw { throw ValidationError("--plain and --raw are two views: give one") }
        if plain, maxDepth != nil || exactIntegers || exactNumbers {
            throw ValidationError("--max-depth, --exact-integers and --exact-numbers shape the lossless view, not --plain (which writes numbers as numbers and takes --nested)")
        }
    }

    func run() throws {
        let view: ArchiveView = raw ? .raw : .readable
        let numbers = NumberWrapping(exactIntegers: exactIntegers, exactNumbers: exactNumbers)
        if batch.isBatch || ndjson {
            let (pretty, maxDepth, nested, plain, stackSize, skipDepthCheck) = (pretty, maxDepth, nested, plain, stack.bytes, stack.skipDepthCheck)
            let inputs = BatchInputs(paths: files, recursive: batch.recursive, into: batch.outputDirectory ?? ".") { $0 + ".json" }
            let run = BatchRun(inputs: inputs, verb: "decoded", jobs: batch.jobs ?? usableCores(), stackSize: stackSize) { input in
                BatchRun.converting(input, hint: { Hint.decoding(input, error: $0) }) { () throws(CodecError) -> [UInt8] in
                    if plain {
                        return try Decode.plainJSON(of: input, pretty: pretty, nested: nested, stackSize: stackSize, skipDepthCheck: skipDepthCheck)
                    }
                    return try Decode.json(
                        of: input, view: view, pretty: pretty, maxDepth: maxDepth, numbers: numbers, nested: nested, stackSize: stackSize, skipDepthCheck: skipDepthCheck)
                }
            }
            if let output { try redirectStandardOutput(to: output) }
            let status = run.run(to: batch.outputDirectory.map(BatchRun.Destination.folder) ?? .lines)
            if status != 0 { throw ExitCode(status) }
            return
        }
        if let output { try redirectStandardOutput(to: output) }
        if plain {
            try Decode.convertPlain(files.first ?? "-", pretty: pretty, nested: nested, stackSize: stack.bytes, skipDepthCheck: stack.skipDepthCheck)
            return
        }
        try Decode.convert(
            files.first ?? "-", view: view, pretty: pretty, maxDepth: maxDepth, numbers: numbers, nested: nested, stackSize: stack.bytes,
            skipDepthCheck: stack.skipDepthCheck)
    }

    /// `input`'s JSON whole (a batch's job), under the same checks as `convert`; with a newline
    /// after compact text, as `convert` writes it. The codec splits only the passes of a large
    /// input over the cores (a small file's run on the calling thread alone), so a large save
    /// among many small files takes about what it takes alone.
    static func json(
        of input: [UInt8], view: ArchiveView, pretty: Bool, maxDepth: Int?, numbers: NumberWrapping, nested: Bool, stackSize: Int, skipDepthCheck: Bool
    ) throws(CodecError) -> [UInt8] {
        let cores = coreParallelism(stackSize: stackSize)
        let archive = try Archive(parsing: input, view: view, parallelism: cores)
        let policy = skipDepthCheck ? DecodePolicy(depthLimit: .max) : DecodePolicy(stackSize: stackSize)
        let plan = try archive.plan(view: view, pretty: pretty, maxDepth: maxDepth, numbers: numbers, parallelism: cores, nested: nested ? policy : nil)
        if let refusal = policy.refusal(depth: plan.depth, pretty: pretty) { throw refused(refusal, stackSize: stackSize) }
        let text = OutputCollector()
        try archive.writeJSON(view: view, pretty: pretty, plan: plan, parallelism: cores) { text.bytes.append(contentsOf: $0) }
        if !pretty { text.bytes.append(UInt8(ascii: "\n")) }
        return text.bytes
    }

    /// `input`'s readable JSON (compact, numbers as decode writes them by default) parsed, for
    /// the commands that read a value in it (`get`) or change one (`set`, `insert`, `remove`);
    /// a codec error is reported as `reportingErrors` does.
    static func readableDocument(of input: [UInt8], nested: Bool, stack: StackOptions) throws -> JSONDocument {
        let (stackSize, skipDepthCheck) = (stack.bytes, stack.skipDepthCheck)
        return try reportingErrors(hint: { Hint.decoding(input, error: $0) }) { () throws(CodecError) -> JSONDocument in
            let json = try json(
                of: input, view: .readable, pretty: false, maxDepth: nil, numbers: .nonFinite, nested: nested, stackSize: stackSize, skipDepthCheck: skipDepthCheck)
            return try JSONDocument(parsing: json)
        }
    }

    static func convert(
        _ file: String, view: ArchiveView, pretty: Bool, maxDepth: Int? = nil, numbers: NumberWrapping = .nonFinite, nested: Bool = false, stackSize: Int, skipDepthCheck: Bool
    ) throws {
        let input = try readInput(file)
        // The conversion thread hands the JSON over in pieces; this thread writes them out
        // meanwhile, so the copy into the kernel overlaps the conversion on a second core.
        let pipe = ChunkPipe(capacity: 4)
        let output = StreamedOutput(descriptor: 1)
        let result = onLargeStack(stackSize, whileRunning: { pipe.drain { output.write($0) } }) { () -> Result<Void, CodecError> in
            defer { pipe.close() }
            return Result { () throws(CodecError) in
                let cores = coreParallelism(stackSize: stackSize)
                let archive = try Archive(parsing: input, view: view, parallelism: cores)
                let policy = skipDepthCheck ? DecodePolicy(depthLimit: .max) : DecodePolicy(stackSize: stackSize)
                let plan = try archive.plan(
                    view: view, pretty: pretty, maxDepth: maxDepth, numbers: numbers, parallelism: cores, nested: nested ? policy : nil)
                if let refusal = policy.refusal(depth: plan.depth, pretty: pretty) {
                    throw refused(refusal, stackSize: stackSize)
                }
                try archive.writeJSON(view: view, pretty: pretty, plan: plan, parallelism: cores) { pipe.push(Array($0)) }
                // Indented text ends with a newline; compact text gets one here, as a text file should.
                if !pretty { pipe.push([UInt8(ascii: "\n")]) }
            }
        }
        try output.conclude(result) { Hint.decoding(input, error: $0) }
    }

    /// `input`'s plain view whole (a batch's job), under the checks `convertPlain` makes.
    static func plainJSON(of input: [UInt8], pretty: Bool, nested: Bool, stackSize: Int, skipDepthCheck: Bool) throws(CodecError) -> [UInt8] {
        let cores = coreParallelism(stackSize: stackSize)
        let archive = try Archive(parsing: input, parallelism: cores)
        let policy = skipDepthCheck ? DecodePolicy(depthLimit: .max) : DecodePolicy(stackSize: stackSize)
        let plan = try archive.plainViewPlan(parallelism: cores, nested: nested ? policy : nil)
        if let refusal = policy.refusal(depth: plan.depth, pretty: pretty) { throw refused(refusal, stackSize: stackSize, plain: true) }
        let text = OutputCollector()
        try archive.writePlainJSON(pretty: pretty, plan: plan, parallelism: cores) { text.bytes.append(contentsOf: $0) }
        if !pretty { text.bytes.append(UInt8(ascii: "\n")) }
        return text.bytes
    }

    /// The plain view of `file` on stdout (`--plain`): the lossless text is made on a stack of
    /// `stackSize` (its writer recurses once per level), held, and written plain.
    static func convertPlain(_ file: String, pretty: Bool, nested: Bool, stackSize: Int, skipDepthCheck: Bool) throws {
        let input = try readInput(file)
        let pipe = ChunkPipe(capacity: 4)
        let output = StreamedOutput(descriptor: 1)
        let result = onLargeStack(stackSize, whileRunning: { pipe.drain { output.write($0) } }) { () -> Result<Void, CodecError> in
            defer { pipe.close() }
            return Result { () throws(CodecError) in
                let cores = coreParallelism(stackSize: stackSize)
                let archive = try Archive(parsing: input, parallelism: cores)
                let policy = skipDepthCheck ? DecodePolicy(depthLimit: .max) : DecodePolicy(stackSize: stackSize)
                let plan = try archive.plainViewPlan(parallelism: cores, nested: nested ? policy : nil)
                if let refusal = policy.refusal(depth: plan.depth, pretty: pretty) {
                    throw refused(refusal, stackSize: stackSize, plain: true)
                }
                try archive.writePlainJSON(pretty: pretty, plan: plan, parallelism: cores) { pipe.push(Array($0)) }
                if !pretty { pipe.push([UInt8(ascii: "\n")]) }
            }
        }
        try output.conclude(result) { Hint.decoding(input, error: $0) }
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
