import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Reads a whole file, or stdin for `-`, into memory; exits with status 4 (ExitStatus.inputOutput) and a message if
/// it cannot.
///
/// A regular file of at least `halvesMinimum` bytes is read by two threads at once, each
/// half with `pread` into its part of one buffer (from where the descriptor stands), then
/// to its end (it may have grown) as any input. The cost of reading here is mostly the
/// kernel clearing pages the process touches for the first time, which each thread pays
/// for the pages it fills, so two threads share it (docs/benchmarks.md,
/// "Why reading got two threads").
func readInput(_ path: BytePath) throws -> [UInt8] {
    switch readWholeFile(path) {
    case .success(let bytes): return bytes
    case .failure(let failure):
        writeAll("archive-tool: \(failure.message)\n", to: 2)
        throw ExitCode(ExitStatus.inputOutput)
    }
}

/// A file that could not be read: `cannot open PATH: reason`, or without the path for a
/// line that begins with it (`cannot open it: reason`). The path is shown as a terminal takes
/// it (`BytePath.shown`); a symbolic link that leads nowhere or round in a loop says so, with
/// where it points.
struct FileFailure: Error {
    let verb: String
    let path: BytePath
    var reason: String

    init(_ verb: String, _ path: BytePath, errno number: Int32) {
        self.verb = verb
        self.path = path
        reason = String(cString: strerror(number))
        // Only the link itself can be read: a missing folder on the way has no target.
        if number == ENOENT || number == ELOOP, let target = path.linkTarget() {
            let shown = TerminalText.escaped(bytes: target)
            reason += number == ENOENT ? " (a symbolic link whose target is missing: \(shown))" : " (symbolic links that lead round in a loop, from \(shown))"
        }
    }

    var message: String { "cannot \(verb) \(path.shown): \(reason)" }
    var messageAfterPath: String { "cannot \(verb) it: \(reason)" }
}

/// `readInput` without exiting: the bytes, or why they could not be read (a batch carries on
/// past such a file).
func readWholeFile(_ path: BytePath) -> Result<[UInt8], FileFailure> {
    let descriptor = path.isStandardInput ? 0 : path.withCString { open($0, O_RDONLY | O_CLOEXEC) }
    guard descriptor >= 0 else {
        var failure = FileFailure("open", path, errno: errno)
        // A name that is not UTF-8 that could not be paired with its word on the command line
        // (`CommandLineFiles`) reaches the tool as text, its odd bytes replaced (U+FFFD), so
        // "no such file" then says nothing about the file given: say what happened.
        if failure.reason.hasPrefix("No such file"), path.holdsReplacementCharacter {
            failure.reason += " (a name that is not UTF-8 reaches this command changed: rename the file, or give it as stdin)"
        }
        return .failure(failure)
    }
    defer { if descriptor != 0 { close(descriptor) } }
    var status = stat()
    // Reading starts where the descriptor stands: stdin may be a file partly read already.
    let start = lseek(descriptor, 0, SEEK_CUR)
    let isFile = fstat(descriptor, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG && start >= 0
    let expected = isFile ? max(Int(status.st_size) - Int(start), 0) : 0
    // The array's storage is filled by read(2) directly: no zero fill, no copy. It grows
    // geometrically (sized up front for files).
    var capacity = max(expected + 1, 1 << 16)
    var bytes: [UInt8] = []
    var failure: Int32 = 0
    while failure == 0 {
        let previous = bytes
        var finished = false
        bytes = [UInt8](unsafeUninitializedCapacity: capacity) { buffer, length in
            previous.withUnsafeBufferPointer { old in
                if !old.isEmpty { buffer.baseAddress!.update(from: old.baseAddress!, count: old.count) }
            }
            length = previous.count
            if length == 0 && expected >= halvesMinimum {
                let read = readInHalves(descriptor, into: buffer.baseAddress!, count: expected, from: Int(start))
                length = read.length
                failure = read.failure
                if failure != 0 { return }
                // The rest, if the file grew, comes from where the halves ended.
                if lseek(descriptor, start + off_t(length), SEEK_SET) < 0 {
                    failure = errno
                    return
                }
            }
            while length < capacity {
                let count = read(descriptor, buffer.baseAddress! + length, capacity - length)
                if count < 0 && errno == EINTR { continue }
                if count < 0 {
                    failure = errno
                    return
                }
                if count == 0 {
                    finished = true
                    return
                }
                length += count
            }
        }
        if finished { return .success(bytes) }
        capacity *= 2
    }
    return .failure(FileFailure("read", path, errno: failure))
}

/// Files smaller than this are read by one thread: starting another costs more than it saves.
private let halvesMinimum = 4 << 20

/// Reads `count` bytes of the file from `offset` into `base`, the second half on another
/// thread. Returns how many bytes lie there in file order: fewer than `count` if the file
/// shrank.
private func readInHalves(_ descriptor: Int32, into base: UnsafeMutablePointer<UInt8>, count: Int, from offset: Int) -> (length: Int, failure: Int32) {
    let half = count / 2 & ~4095
    let second = PartRead()
    let thread = startThread(stackSize: 1 << 20) {
        second.result = readFully(descriptor, into: base + half, count: count - half, at: offset + half)
    }
    let first = readFully(descriptor, into: base, count: half, at: offset)
    thread.join()
    if first.failure != 0 { return (0, first.failure) }
    if first.length < half { return (first.length, 0) }
    if second.result.failure != 0 { return (0, second.result.failure) }
    return (half + second.result.length, 0)
}

/// Up to `count` bytes from `offset`, fewer only at the end of the file.
private func readFully(_ descriptor: Int32, into base: UnsafeMutablePointer<UInt8>, count: Int, at offset: Int) -> (length: Int, failure: Int32) {
    var length = 0
    while length < count {
        let read = pread(descriptor, base + length, count - length, off_t(offset + length))
        if read < 0 && errno == EINTR { continue }
        if read < 0 { return (length, errno) }
        if read == 0 { break }
        length += read
    }
    return (length, 0)
}

/// The second half's result, written by its thread before it is joined.
private final class PartRead: @unchecked Sendable {
    var result: (length: Int, failure: Int32) = (0, 0)
}
