import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

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
    /// discarded (as far as stdout allows) and its error (`failure`) reported, then write
    /// errors are. (An optional error, not a `Result`: a `Result` of a codec error costs a
    /// small file's run a conformance lookup at its first use, 0.2 M instructions.)
    func conclude(_ failure: CodecError?, hint: (CodecError) -> String? = { _ in nil }) throws {
        if let failure {
            discard()
            try reportingErrors(hint: hint) { () throws(CodecError) in throw failure }
        }
        try check()
    }

    func check() throws {
        guard failure != 0 else { return }
        writeAll("archive-tool: cannot write the output: \(String(cString: strerror(failure)))\n", to: 2)
        throw ExitCode(ExitStatus.inputOutput)
    }
}

/// Writes a finished output whole to stdout; a write error exits 1.
func writeOutput(_ bytes: [UInt8]) throws {
    let output = StreamedOutput(descriptor: 1)
    output.write(bytes)
    try output.check()
}
