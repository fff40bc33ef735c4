import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `codec-fuzz`: a time-bounded mutation fuzzer for the codec (run by `scripts/fuzz/fuzz_codec.sh`).
///
/// Every mutated input must be either refused with a `CodecError` or converted, and whatever
/// converts must survive the round trip: an archive's readable JSON must encode (to binary and
/// to XML) back into an archive equivalent to it (`KeyedArchive.difference(from:)`), and a
/// JSON document that encodes must yield an archive that decodes and round-trips the same way:
/// for every format (binary and XML; a typedstream is its own), what the encoder accepts the
/// decoder reads back, and its JSON encodes again to the same archive (the same bytes for a
/// typedstream).
/// With `--salvage`, every input refused whole is read again with salvage (`checkSalvage`).
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

    @Flag(help: "Read every input refused whole again with salvage, and check what it reads ($broken marks, the encode's refusal, the round trip without them).")
    var salvage = false

    @Argument(help: "Seed inputs: archives (binary or XML plists) and JSON documents.")
    var corpus: [String]

    func run() throws {
        if replay {
            var oracle = RoundTripOracle()
            oracle.salvage = salvage
            for path in corpus {
                emit("\(path): \(oracle.check(try readFile(path)) ?? "ok")")
            }
            return
        }
        mkdir(out, 0o755)
        CrashReporter.install(path: "\(out)/crash-\(getpid()).bin")
        var seeds = try corpus.map(readFile)
        // The readable JSON of every document in the corpus (keyed archives, property lists,
        // typedstreams) seeds the encoder's side.
        seeds += seeds.compactMap { try? Archive(parsing: $0).json(view: .readable, pretty: false) }
        // With salvage, the JSON of the damaged ones too: documents holding `$broken` marks.
        if salvage {
            seeds += seeds.compactMap { seed in (try? Archive(parsing: seed)) == nil ? try? Archive(parsing: seed, salvaging: true).json(view: .readable, pretty: false) : nil }
        }
        guard !seeds.isEmpty else { throw ValidationError("no corpus") }

        var mutator = Mutator(seed: seed)
        var oracle = RoundTripOracle()
        oracle.salvage = salvage
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
        emit(
            """
            codec-fuzz: seed \(seed), \(seconds) s, \(iterations) inputs, \(oracle.converted) converted \
            and round-tripped, \(oracle.refused) refused with a CodecError, \(oracle.tooDeep) over \
            the depth limit, \(findings) findings\(salvage ? ", \(oracle.salvaged) of the refused salvaged and checked" : "")
            """)
        if findings > 0 { throw ExitCode(1) }
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
