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
/// A regular file (or a name nothing has yet) is written unseen (`UnseenFile`) and takes its
/// name once the command has written everything (`commitStandardOutput`): a conversion
/// refused part way leaves the file as it was, not emptied; a named temporary file is removed
/// as the process exits. Anything else (a device, a pipe, a link, a folder the tool may not
/// create files in) is opened and written in place.
func redirectStandardOutput(to path: BytePath) throws {
    var unseen: (file: UnseenFile, temporary: BytePath)?
    if let temporary = OutputFile.temporaryName(for: path), let file = UnseenFile.create(becoming: path, temporary: temporary) {
        unseen = (file, temporary)
    }
    let output = unseen?.file.descriptor ?? path.withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
    guard output >= 0 else {
        writeAll("archive-tool: cannot open \(path.shown) for writing: \(String(cString: strerror(errno)))\n", to: 2)
        throw ExitCode(ExitStatus.inputOutput)
    }
    if output != 1 {
        guard dup2(output, 1) == 1 else {
            writeAll("archive-tool: cannot write to \(path.shown): \(String(cString: strerror(errno)))\n", to: 2)
            unseen?.file.discard()
            throw ExitCode(ExitStatus.inputOutput)
        }
        close(output)
    }
    if let (file, temporary) = unseen {
        OutputFile.pending = (file.renumbered(1), path, temporary)
        if !file.isUnnamed { OutputFile.removeAtExit() }
    }
}

/// The command wrote all it had to: the file `-o FILE` wrote (if unseen) takes the file's
/// name, with the mode the file had. Exits 4 when that fails (the file as it was).
func commitStandardOutput() throws {
    guard let (file, path, temporary) = OutputFile.pending else { return }
    OutputFile.pending = nil
    var status = stat()
    if path.withCString({ stat($0, &status) }) == 0 { _ = fchmod(1, status.st_mode & 0o7777) }
    // Descriptor 1 stays open: the process's stdout until it exits.
    let failure = file.name(path, spare: temporary, closing: false)
    guard failure == 0 else {
        writeAll("archive-tool: cannot write \(path.shown): \(String(cString: strerror(failure)))\n", to: 2)
        throw ExitCode(ExitStatus.inputOutput)
    }
}

/// The file `-o` writes (`redirectStandardOutput`), while it has not yet taken its name.
enum OutputFile {
    /// The file (on descriptor 1), its name to be, and its temporary name.
    nonisolated(unsafe) static var pending: (file: UnseenFile, path: BytePath, temporary: BytePath)?
    nonisolated(unsafe) private static var registered = false

    /// `NAME.PID.partial` beside `path` (as a batch names its outputs' temporary files), when
    /// `path` names a regular file or nothing yet (not a link: writing through it keeps the
    /// link) and its folder can take a file.
    static func temporaryName(for path: BytePath) -> BytePath? {
        if let status = path.status(following: false), status.st_mode & S_IFMT != S_IFREG { return nil }
        guard path.bytes.last.map({ $0 != UInt8(ascii: "/") }) ?? false else { return nil }
        guard path.folder.withCString({ access($0, W_OK | X_OK) }) == 0 else { return nil }
        return path.appendingToName(".\(getpid()).partial")
    }

    /// Removes the temporary file as the process exits, when no command committed it.
    static func removeAtExit() {
        guard !registered else { return }
        registered = true
        atexit {
            OutputFile.pending?.file.discard(closing: false)
        }
    }
}
