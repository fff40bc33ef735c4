import ArchiveCodec
import PThreads
import Synchronization

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Many files converted in one run, each into its own output file (`--output-dir`) or into one
/// JSON line each on stdout (`--ndjson`): the process starts once for all of them, and `jobs`
/// threads convert a file each at a time.
///
/// Into a folder, a file that cannot be read or converted is one line on stderr beginning with
/// its path, and the run carries on; its output is not written. An output is written to a
/// temporary file beside it and renamed into place when whole, so no output is ever
/// half-written. As lines, every file is one line in the order given, `{"file": …, "document":
/// …}` or `{"file": …, "error": problem}` (`ProblemDocument`, as the service words it), with
/// `fileBase64` after `file` for a path that is not UTF-8 (`fileFields`); a job
/// does not start a file more than `window` files ahead of the next line to write, so the lines
/// waiting for their turn stay few whatever a slow file holds up. On a
/// terminal, stderr shows progress (files, bytes, failures, rate, time left); a closing line
/// gives the counts. The exit status is 0 when every file converted, `ExitStatus.someFailed`
/// when some did not.
///
/// Each job holds one file's input and output at a time: memory follows the largest files
/// converting at once, not the number of files.
final class BatchRun: @unchecked Sendable {
    /// One file's conversion: its output, or why not (a message without the path).
    typealias Conversion = @Sendable ([UInt8]) -> Result<[UInt8], ConversionFailure>

    struct ConversionFailure: Error {
        /// For stderr: what went wrong, with a hint when the input is plainly something else.
        let message: String
        /// For `--ndjson`: the problem document.
        let problem: ProblemDocument
    }

    /// Where the outputs go.
    enum Destination {
        /// Each into its own file under the folder (`BatchInputs.Item.output`).
        case folder(BytePath)
        /// One JSON line per file on stdout, in the order given.
        case lines
    }

    private let inputs: BatchInputs
    private let verb: String
    private let convert: Conversion
    private let jobs: Int
    private let stackSize: Int
    private let next = Atomic<Int>(0)
    private let showsProgress: Bool
    private let started = monotonicSeconds()
    /// Names this run's temporary files (with a number per file): two runs into one folder
    /// never write one temporary file.
    private let processID = getpid()

    // Guarded by `lock`.
    private let lock = PThreadMutex()
    private var done = 0
    private var failed = 0
    private var bytesRead = 0
    private var progressShown = false
    private var temporaryNumber = 0
    /// `--ndjson`: finished lines waiting for the ones before them, and the next to write.
    private var waitingLines: [Int: [UInt8]] = [:]
    private var nextLine = 0
    private let lineWritten = PThreadCondition()
    private var stdoutFailure: Int32 = 0
    private var destination = Destination.lines

    /// How far ahead of the next line to write a job may start a file.
    private var window: Int { 4 * jobs }

    /// `verb` names the work in the closing line (`decoded`).
    init(inputs: BatchInputs, verb: String, jobs: Int, stackSize: Int, convert: @escaping Conversion) {
        self.inputs = inputs
        self.verb = verb
        self.jobs = max(1, min(jobs, inputs.items.count))
        self.stackSize = stackSize
        self.convert = convert
        showsProgress = isatty(2) == 1
    }

    /// Runs the batch; returns the exit status.
    func run(to destination: Destination) -> Int32 {
        self.destination = destination
        if case .folder(let folder) = destination, !makeFolders(folder) { return ExitStatus.inputOutput }
        for line in inputs.renamed + inputs.passedOver { say("archive-tool: \(line)") }
        for (path, message) in inputs.refused { fail(path, message) }
        let threads = (0..<jobs).map { _ in startThread(stackSize: stackSize) { self.work() } }
        if showsProgress {
            while lock.withLock({ done + failed - inputs.refused.count }) < inputs.items.count {
                usleep(100_000)
                lock.withLock { showProgress() }
            }
        }
        for thread in threads { thread.join() }
        return conclude()
    }

    private func work() {
        while true {
            let index = next.wrappingAdd(1, ordering: .relaxed).oldValue
            guard index < inputs.items.count else { return }
            let item = inputs.items[index]
            guard case .folder = destination else {
                lock.withLock { while index >= nextLine + window { lineWritten.wait(lock) } }
                writeLine(index, line(for: item))
                continue
            }
            switch convertFile(item.path) {
            case .unreadable(let message): fail(item.path, message)
            case .failed(let failure): fail(item.path, failure.message)
            case .converted(let output):
                if let problem = writeWhole(output, to: item.output) {
                    fail(item.path, problem)
                } else {
                    lock.withLock { done += 1 }
                }
            }
        }
    }

    /// What became of one file: its output, or why there is none.
    private enum FileOutcome {
        case converted([UInt8])
        /// The file could not be read: the reason, after its path.
        case unreadable(String)
        case failed(ConversionFailure)
    }

    /// Reads the file at `path` and converts it, counting the bytes read.
    private func convertFile(_ path: BytePath) -> FileOutcome {
        switch readWholeFile(path) {
        case .failure(let failure):
            return .unreadable(failure.messageAfterPath)
        case .success(let input):
            lock.withLock { bytesRead += input.count }
            switch convert(input) {
            case .failure(let failure): return .failed(failure)
            case .success(let output): return .converted(output)
            }
        }
    }

    /// `{"file": …, "document": …}` or `{"file": …, "error": …}`, with its newline.
    private func line(for item: BatchInputs.Item) -> [UInt8] {
        let head = Array("{\(Self.fileFields(item.path)),".utf8)
        let problem: ProblemDocument
        switch convertFile(item.path) {
        case .unreadable(let message):
            problem = ProblemDocument(slug: "unreadable-file", title: "File cannot be read", status: nil, detail: message)
        case .failed(let failure):
            problem = failure.problem
        case .converted(var document):
            if document.last == UInt8(ascii: "\n") { document.removeLast() }
            lock.withLock { done += 1 }
            return head + Array("\"document\":".utf8) + document + Array("}\n".utf8)
        }
        lock.withLock { failed += 1 }
        return head + Array("\"error\":\(problem.json)}\n".utf8)
    }

    /// Writes line `index` when the lines before it are written, and every waiting line that
    /// then follows.
    private func writeLine(_ index: Int, _ line: [UInt8]) {
        lock.withLock {
            waitingLines[index] = line
            while let next = waitingLines.removeValue(forKey: nextLine) {
                if stdoutFailure == 0 {
                    clearProgress()
                    stdoutFailure = next.withUnsafeBytes { writeAll($0, to: 1) }
                }
                nextLine += 1
            }
            lineWritten.broadcast()
        }
    }

    /// The output folder and every folder the outputs go in; false (said) when one cannot be made.
    private func makeFolders(_ folder: BytePath) -> Bool {
        var folders: Set<BytePath> = [folder]
        for item in inputs.items {
            var path = item.output
            while let parent = path.parent, folders.insert(parent).inserted { path = parent }
        }
        // Parents before children: a shorter path is never inside a longer one.
        for path in folders.sorted(by: { $0.bytes.count < $1.bytes.count }) where path.withCString({ mkdir($0, 0o755) }) != 0 && errno != EEXIST {
            say("archive-tool: cannot make the folder \(path.shown): \(String(cString: strerror(errno)))")
            return false
        }
        return true
    }

    /// Writes `bytes` as the file `path` (`UnseenFile`: whole or not at all); nil when done,
    /// else what went wrong.
    private func writeWhole(_ bytes: [UInt8], to path: BytePath) -> String? {
        let number = lock.withLock {
            temporaryNumber += 1
            return temporaryNumber
        }
        let temporary = path.appendingToName(".\(processID)-\(number).partial")
        guard let file = UnseenFile.create(becoming: path, temporary: temporary) else {
            return "cannot write \(path.shown): \(String(cString: strerror(errno)))"
        }
        let failure = bytes.withUnsafeBytes { writeAll($0, to: file.descriptor) }
        guard failure == 0 else {
            file.discard()
            return "cannot write \(path.shown): \(String(cString: strerror(failure)))"
        }
        let named = file.name(path, spare: temporary)
        return named == 0 ? nil : "cannot write \(path.shown): \(String(cString: strerror(named)))"
    }

    /// `"file": NAME` for a line, and `"fileBase64": BYTES` after it when the name is not
    /// UTF-8: JSON holds text only, so `file` then has U+FFFD for each byte that is not UTF-8,
    /// and `fileBase64` the path's exact bytes (RFC 4648 base64, as the mapping writes data).
    static func fileFields(_ path: BytePath) -> String {
        let text = JSONString.quoted(path.replacingInvalidUTF8)
        guard !path.isUTF8 else { return "\"file\":" + text }
        return "\"file\":" + text + ",\"fileBase64\":\"" + Base64.text(Array(path.bytes)) + "\""
    }

    /// `message` is a failure's words, which may quote the input; `path` is shown as a
    /// terminal takes it (`BytePath.shown`).
    private func fail(_ path: BytePath, _ message: String) {
        lock.withLock {
            failed += 1
            clearProgress()
            // One line, beginning with the path; what a terminal would act on in the path or in
            // the input the message quotes is written escaped (`TerminalText`), a line break too.
            writeAll(path.shown + ": " + TerminalText.escaped(message) + "\n", to: 2)
        }
    }

    /// `line` is written as it is: what it quotes of a path or an input is escaped already.
    private func say(_ line: String) {
        lock.withLock {
            clearProgress()
            writeAll(line + "\n", to: 2)
        }
    }

    /// The closing line; the exit status.
    private func conclude() -> Int32 {
        let seconds = monotonicSeconds() - started
        let total = inputs.items.count + inputs.refused.count
        return lock.withLock {
            clearProgress()
            if stdoutFailure != 0 {
                writeAll("archive-tool: cannot write the output: \(String(cString: strerror(stdoutFailure)))\n", to: 2)
                return ExitStatus.inputOutput
            }
            var line = "archive-tool: \(verb) \(done) of \(total) file\(total == 1 ? "" : "s")"
            if case .folder(let folder) = destination { line += " into \(folder.shown)" }
            if failed > 0 { line += ", \(failed) failed" }
            line += " (\(Self.size(bytesRead)) in \(Self.duration(seconds)))\n"
            writeAll(line, to: 2)
            return failed > 0 ? ExitStatus.someFailed : 0
        }
    }

    // MARK: Progress (stderr on a terminal)

    /// Called with `lock` held.
    private func showProgress() {
        let seconds = monotonicSeconds() - started
        let finished = done + failed - inputs.refused.count
        let rate = seconds > 0 ? Double(finished) / seconds : 0
        var line = "\r\u{1B}[K\(finished)/\(inputs.items.count) files, \(Self.size(bytesRead))"
        if failed > 0 { line += ", \(failed) failed" }
        if rate > 0 {
            line += ", \(Int(rate.rounded())) files/s, \(Self.duration(Double(inputs.items.count - finished) / rate)) left"
        }
        writeAll(line, to: 2)
        progressShown = true
    }

    /// Called with `lock` held.
    private func clearProgress() {
        guard progressShown else { return }
        writeAll("\r\u{1B}[K", to: 2)
        progressShown = false
    }

    static func size(_ bytes: Int) -> String {
        switch bytes {
        case ..<1_000: "\(bytes) B"
        case ..<1_000_000: decimal(Double(bytes) / 1e3) + " kB"
        case ..<1_000_000_000: decimal(Double(bytes) / 1e6) + " MB"
        default: decimal(Double(bytes) / 1e9) + " GB"
        }
    }

    static func duration(_ seconds: Double) -> String {
        if seconds < 1 { return "\(Int((seconds * 1000).rounded())) ms" }
        return seconds < 60 ? decimal(seconds) + " s" : "\(Int(seconds) / 60) min \(Int(seconds) % 60) s"
    }

    /// One decimal below 100, none above: `3.7`, `250`.
    private static func decimal(_ value: Double) -> String {
        value < 100 ? String(Double((value * 10).rounded()) / 10) : String(Int(value.rounded()))
    }
}

/// Seconds on the monotonic clock.
private func monotonicSeconds() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_MONOTONIC, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

extension BatchRun {
    /// `body`'s output, or its codec error in the words `reportingErrors` prints (with the
    /// remedy in this tool's flags and the hint for an input that is plainly something else),
    /// as one message.
    static func converting<Output>(_ input: [UInt8], hint: (CodecError) -> String?, _ body: () throws(CodecError) -> Output) -> Result<Output, ConversionFailure> {
        do {
            return .success(try body())
        } catch {
            let described = described(error, hint: hint)
            var message = described.message
            if let hint = described.hint { message += "; \(hint)" }
            return .failure(ConversionFailure(message: message, problem: ProblemDocument(error, remedy: remedy(error.remedy), instance: nil)))
        }
    }
}

/// Output pieces gathered into one array, for a conversion whose sink must escape.
final class OutputCollector: @unchecked Sendable {
    var bytes: [UInt8] = []
}
