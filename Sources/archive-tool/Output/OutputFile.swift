import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `-o FILE`: makes the output file the process's stdout, so that every writer, streamed or
/// whole, writes it exactly as it would a redirected stdout, cutting back included. A file
/// that cannot be opened exits 4.
///
/// A regular file (or a name nothing has yet) is written as a temporary file beside it,
/// renamed over it once the command has written everything (`commitStandardOutput`): a
/// conversion refused part way leaves the file as it was, not emptied, and the temporary
/// file is removed as the process exits. Anything else (a device, a pipe, a link, a folder
/// the tool may not create files in) is opened and written in place, as before.
func redirectStandardOutput(to path: BytePath) throws {
    let fd: Int32
    if let temporary = OutputFile.temporaryName(for: path) {
        fd = temporary.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644) }
        if fd >= 0 {
            OutputFile.pending = (temporary, path)
            OutputFile.removeAtExit()
        }
    } else {
        fd = -1
    }
    let output = fd >= 0 ? fd : path.withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
    guard output >= 0 else {
        writeAll("archive-tool: cannot open \(path.shown) for writing: \(String(cString: strerror(errno)))\n", to: 2)
        throw ExitCode(ExitStatus.inputOutput)
    }
    if output != 1 {
        guard dup2(output, 1) == 1 else {
            writeAll("archive-tool: cannot write to \(path.shown): \(String(cString: strerror(errno)))\n", to: 2)
            throw ExitCode(ExitStatus.inputOutput)
        }
        close(output)
    }
}

/// The command wrote all it had to: the temporary file of `-o FILE` (if any) takes the file's
/// name, with the mode the file had. Exits 4 when the rename fails (the file as it was).
func commitStandardOutput() throws {
    guard let (temporary, path) = OutputFile.pending else { return }
    OutputFile.pending = nil
    var status = stat()
    if path.withCString({ stat($0, &status) }) == 0 { _ = fchmod(1, status.st_mode & 0o7777) }
    let renamed = temporary.withCString { from in path.withCString { to in rename(from, to) } }
    guard renamed == 0 else {
        let reason = String(cString: strerror(errno))
        _ = temporary.withCString { unlink($0) }
        writeAll("archive-tool: cannot write \(path.shown): \(reason)\n", to: 2)
        throw ExitCode(ExitStatus.inputOutput)
    }
}

/// The temporary file `-o` writes (`redirectStandardOutput`), while it is not yet renamed.
enum OutputFile {
    nonisolated(unsafe) static var pending: (temporary: BytePath, path: BytePath)?
    nonisolated(unsafe) private static var registered = false

    /// `NAME.PID.partial` beside `path` (as a batch names its outputs' temporary files), when
    /// `path` names a regular file or nothing yet (not a link: writing through it keeps the
    /// link) and its folder can take a file.
    static func temporaryName(for path: BytePath) -> BytePath? {
        if let status = path.status(following: false), status.st_mode & S_IFMT != S_IFREG { return nil }
        guard path.bytes.last.map({ $0 != UInt8(ascii: "/") }) ?? false else { return nil }
        let folder = path.parent ?? BytePath(path.bytes.first == UInt8(ascii: "/") ? "/" : ".")
        guard folder.withCString({ access($0, W_OK | X_OK) }) == 0 else { return nil }
        return path.appendingToName(".\(getpid()).partial")
    }

    /// Removes the temporary file as the process exits, when no command committed it.
    static func removeAtExit() {
        guard !registered else { return }
        registered = true
        atexit {
            guard let (temporary, _) = OutputFile.pending else { return }
            _ = temporary.withCString { unlink($0) }
        }
    }
}
