import ArchiveCodec
import ArgumentParser

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Prints a codec error and exits 2, or 3 when a limit (depth, size) was exceeded.
func reportingErrors<T>(_ body: () throws(CodecError) -> T) throws -> T {
    do {
        return try body()
    } catch {
        writeAll("archive-tool: \(error)\n", to: 2)
        throw ExitCode(error.kind == .limitExceeded || error.kind == .depthBoundTooSmall ? 3 : 2)
    }
}
