import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `-o FILE`: makes `path` (created, or emptied if it exists) the process's stdout, so that
/// every writer, streamed or whole, writes the file exactly as it would a redirected stdout,
/// cutting back included. A file that cannot be opened exits 4.
func redirectStandardOutput(to path: BytePath) throws {
    let fd = path.withCString { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
    guard fd >= 0 else {
        writeAll("archive-tool: cannot open \(path.shown) for writing: \(String(cString: strerror(errno)))\n", to: 2)
        throw ExitCode(ExitStatus.inputOutput)
    }
    if fd != 1 {
        guard dup2(fd, 1) == 1 else {
            writeAll("archive-tool: cannot write to \(path.shown): \(String(cString: strerror(errno)))\n", to: 2)
            throw ExitCode(ExitStatus.inputOutput)
        }
        close(fd)
    }
}
