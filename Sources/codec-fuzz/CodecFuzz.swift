import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `codec-fuzz`: a time-bounded mutation fuzzer for the codec (run by `scripts/fuzz_codec.sh`).
///
/// Every mutated input must be either refused with a `CodecError` or converted, and whatever
/// converts must survive the round trip: an archive's readable JSON must encode (to binary and
/// to XML) back into an archive equivalent to it (`KeyedArchive.difference(from:)`), and a
/// JSON document that encodes must yield an archive that decodes and round-trips the same way.
/// A crash writes the input that caused it to `OUT/crash-PID.bin` from the signal handler;
/// an oracle failure writes `OUT/finding-N.bin` and a line to stdout, and the run goes on.
@main
struct CodecFuzz: ParsableCommand {
    @Option(help: "Stop after this many seconds.")
    var seconds = 60

    @Option(help: "Random seed (the same seed and corpus repeat the same run).")
    var seed: UInt64 = 1

    @Option(help: "Directory for crash and finding reproducers.")
    var out = "bench-out/fuzz"

    @Option(help: "At most this many mutations per input.")
    var rounds = 6

    @Flag(help: "Check each corpus file once, unmutated, and report (reproduce a finding or crash).")
    var replay = false

    @Argument(help: "Seed inputs: archives (binary or XML plists) and JSON documents.")
    var corpus: [String]

    func run() throws {
        if replay {
            var oracle = RoundTripOracle()
            for path in corpus {
                emit("\(path): \(oracle.check(try readFile(path)) ?? "ok")")
            }
            return
        }
        mkdir(out, 0o755)
        CrashReporter.install(path: "\(out)/crash-\(getpid()).bin")
        var seeds = try corpus.map(readFile)
        // The readable JSON of every archive in the corpus seeds the encoder's side.
        seeds += seeds.compactMap { try? KeyedArchive(parsing: $0).json(view: .readable, pretty: false) }
        guard !seeds.isEmpty else { throw ValidationError("no corpus") }

        var mutator = Mutator(seed: seed)
        var oracle = RoundTripOracle()
        var findings = 0
        var iterations = 0
        let deadline = monotonicSeconds() + Double(seconds)
        while iterations % 256 != 0 || monotonicSeconds() < deadline {
            let base = seeds[mutator.below(seeds.count)]
            let input = mutator.mutate(base, rounds: rounds, other: seeds[mutator.below(seeds.count)])
            CrashReporter.remember(input)
            if let problem = oracle.check(input) {
                findings += 1
                let path = "\(out)/finding-\(findings).bin"
                try writeFile(path, input)
                emit("finding \(findings): \(problem) (input in \(path))")
            }
            iterations += 1
        }
        emit("""
            codec-fuzz: seed \(seed), \(seconds) s, \(iterations) inputs, \(oracle.converted) converted \
            and round-tripped, \(oracle.refused) refused with a CodecError, \(oracle.tooDeep) over \
            the depth limit, \(findings) findings
            """)
        if findings > 0 { throw ExitCode(1) }
    }
}

/// The properties every input must have; counts what happened to the inputs.
struct RoundTripOracle {
    /// The fuzzer runs on the main thread: stay well inside an 8 MiB stack.
    static let stackSize = 6 << 20
    var converted = 0, refused = 0, tooDeep = 0

    mutating func check(_ input: [UInt8]) -> String? {
        if input.first == UInt8(ascii: "{") || input.first == UInt8(ascii: "[") {
            return checkDocument(input)
        }
        return checkArchive(input)
    }

    private mutating func checkDocument(_ input: [UInt8]) -> String? {
        let encoded: [UInt8]
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: input)
            encoded = try document.archive(format: .binary)
        } catch {
            refused += 1
            return nil
        }
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(parsing: encoded)
        } catch {
            return "a JSON document encoded into an archive that does not decode: \(error)"
        }
        // The streamed form (large documents in archive-tool) must hold the same graph.
        var streamed: [UInt8] = []
        do {
            try document.writeArchive { streamed.append(contentsOf: $0) }
            if let difference = try KeyedArchive(parsing: streamed).difference(from: archive) {
                return "the streamed archive differs from the one built in memory: \(difference)"
            }
        } catch {
            return "a JSON document that encodes in memory fails when streamed: \(error)"
        }
        return checkArchive(encoded)
    }

    /// Validation in ranges and two writers meeting at the middle reference (what
    /// archive-tool does with two cores) must give one writer's text; jobs run in reverse
    /// order and every input is cut, however small.
    private func checkParallelPaths(_ input: [UInt8], json: [UInt8]) -> String? {
        let halves = Parallelism(width: 2, smallestPart: 1) { jobs, job in
            for index in (0..<jobs).reversed() { job(index) }
        }
        do {
            let archive = try KeyedArchive(parsing: input, parallelism: halves)
            let plan = try archive.plan(view: .readable, pretty: false, parallelism: halves)
            var text: [UInt8] = []
            try archive.writeJSON(view: .readable, pretty: false, plan: plan, parallelism: halves) { text += $0 }
            return text == json ? nil : "two writers wrote other JSON than one"
        } catch {
            return "the archive fails when validated in ranges or written in halves: \(error)"
        }
    }

    private mutating func checkArchive(_ input: [UInt8]) -> String? {
        let archive: KeyedArchive
        do {
            archive = try KeyedArchive(parsing: input)
        } catch {
            refused += 1
            return nil
        }
        guard archive.depth(of: .readable) <= StackBudget.maxDepth(stackSize: Self.stackSize) else {
            tooDeep += 1
            return nil
        }
        let json: [UInt8]
        let pretty: [UInt8]
        do {
            _ = try archive.json(view: .raw, pretty: true)
            json = try archive.json(view: .readable, pretty: false)
            pretty = try archive.json(view: .readable, pretty: true)
        } catch {
            refused += 1  // larger than the JSON size limit
            return nil
        }
        if let problem = checkParallelPaths(input, json: json) { return problem }
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: json)
            _ = try JSONDocument(parsing: pretty)
        } catch {
            return "the readable JSON of an archive does not parse: \(error)"
        }
        for format in [PlistFormat.binary, .xml] {
            do {
                let copy = try KeyedArchive(parsing: document.archive(format: format))
                if let difference = archive.difference(from: copy, plistDatesToWholeSeconds: format == .xml) {
                    return "\(format) round trip is not equivalent: \(difference)"
                }
            } catch where format == .xml && error.kind == .invalidDocument
                && (error.message.contains("XML plist can write") || error.message.contains("reads back"))
            {
                continue  // what XML cannot hold (far dates, CF$UID dictionaries) is refused, not rewritten
            } catch {
                return "the readable JSON of an archive does not encode to \(format): \(error)"
            }
        }
        converted += 1
        return nil
    }
}

/// Writes a line to stdout unbuffered, so nothing is lost if a later input crashes the process.
func emit(_ line: String) {
    var bytes = Array((line + "\n").utf8)
    var offset = 0
    while offset < bytes.count {
        let written = bytes.withUnsafeMutableBytes { write(1, $0.baseAddress! + offset, $0.count - offset) }
        if written <= 0 { return }
        offset += written
    }
}

func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func readFile(_ path: String) throws -> [UInt8] {
    guard let file = fopen(path, "rb") else { throw ValidationError("cannot open \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let count = fread(&chunk, 1, chunk.count, file)
        if count == 0 { break }
        bytes += chunk[0..<count]
    }
    return bytes
}

func writeFile(_ path: String, _ bytes: [UInt8]) throws {
    guard let file = fopen(path, "wb") else { throw ValidationError("cannot create \(path)") }
    defer { fclose(file) }
    guard fwrite(bytes, 1, bytes.count, file) == bytes.count else { throw ValidationError("cannot write \(path)") }
}
