import Foundation

#if canImport(Glibc)
import Glibc
#endif

/// Files named by bytes, for the tests of names that are not UTF-8: Foundation's paths are
/// text, and would write such a name changed.
enum BytePathFiles {
    struct Failure: Error {
        let message: String
    }

    /// `text`'s UTF-8 followed by `bytes`: a folder's path and a name in it.
    static func path(_ text: String, _ bytes: [UInt8]) -> [UInt8] { Array(text.utf8) + bytes }

    /// Writes `data` to the file at `path` (created or replaced).
    static func write(_ data: Data, to path: [UInt8]) throws {
        let descriptor = withCString(path) { open($0, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644) }
        guard descriptor >= 0 else { throw Failure(message: "cannot create \(shown(path)): \(String(cString: strerror(errno)))") }
        defer { close(descriptor) }
        let written = data.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == data.count else { throw Failure(message: "cannot write \(shown(path))") }
    }

    /// The file at `path`, whole.
    static func read(_ path: [UInt8]) throws -> Data {
        let descriptor = withCString(path) { open($0, O_RDONLY | O_CLOEXEC) }
        guard descriptor >= 0 else { throw Failure(message: "cannot open \(shown(path)): \(String(cString: strerror(errno)))") }
        return FileHandle(fileDescriptor: descriptor, closeOnDealloc: true).readDataToEndOfFile()
    }

    static func makeFolder(_ path: [UInt8]) throws {
        guard withCString(path, { mkdir($0, 0o755) }) == 0 else { throw Failure(message: "cannot make \(shown(path))") }
    }

    /// A symbolic link at `path` to `target`.
    static func link(_ path: [UInt8], to target: String) throws {
        guard withCString(path, { symlink(target, $0) }) == 0 else { throw Failure(message: "cannot link \(shown(path))") }
    }

    /// The names in the folder at `path`, as bytes, sorted; `.` and `..` left out.
    static func names(in path: [UInt8]) throws -> [[UInt8]] {
        guard let directory = withCString(path, { opendir($0) }) else { throw Failure(message: "cannot list \(shown(path))") }
        defer { closedir(directory) }
        var names: [[UInt8]] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
            if name != [0x2E] && name != [0x2E, 0x2E] { names.append(name) }
        }
        return names.sorted { $0.lexicographicallyPrecedes($1) }
    }

    /// `path` for a failure's message.
    static func shown(_ path: [UInt8]) -> String { String(decoding: path, as: UTF8.self) }

    private static func withCString<Result>(_ path: [UInt8], _ body: (UnsafePointer<CChar>) -> Result) -> Result {
        (path + [0]).withUnsafeBufferPointer { buffer in buffer.withMemoryRebound(to: CChar.self) { body($0.baseAddress!) } }
    }
}
