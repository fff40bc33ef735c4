#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file's path as the kernel takes it: bytes, not text. A Linux name is any bytes but `/` and
/// NUL, and one that is not UTF-8 (Latin-1 from a zip file, an old HFS copy) made into a
/// `String` comes back as another name, its odd bytes replaced by U+FFFD. So the paths of a
/// batch stay bytes from `readdir` or `argv` to `open`, `stat`, `mkdir` and `rename`, and are
/// turned into text only to be shown (`shown`, `TerminalText.escaped(bytes:)`).
///
/// The bytes are kept with a NUL after them, so a system call takes them as they are, with no
/// copy per call.
struct BytePath: Hashable, Sendable {
    /// The bytes and a NUL after them.
    private let terminated: [UInt8]

    /// `bytes` holds no NUL (a C string would end there): from `readdir`, `argv`, or joined from those.
    init(_ bytes: some Collection<UInt8>) {
        var terminated = [UInt8]()
        terminated.reserveCapacity(bytes.count + 1)
        terminated.append(contentsOf: bytes)
        terminated.append(0)
        self.terminated = terminated
    }

    /// A path given as text (an option's value, a test's path): its UTF-8.
    init(_ text: String) { self.init(text.utf8) }

    /// The path's bytes, without the NUL.
    var bytes: ArraySlice<UInt8> { terminated.dropLast() }

    /// `-`: stdin, as a file argument.
    var isStandardInput: Bool { terminated == [UInt8(ascii: "-"), 0] }

    /// Calls `body` with the path as a C string, for a system call.
    func withCString<Result>(_ body: (UnsafePointer<CChar>) throws -> Result) rethrows -> Result {
        try terminated.withUnsafeBufferPointer { buffer in
            try buffer.withMemoryRebound(to: CChar.self) { try body($0.baseAddress!) }
        }
    }

    /// `component` inside this folder: joined with one `/` (none added after a trailing one).
    func appending(_ component: some Collection<UInt8>) -> BytePath { BytePath(Self.joining(bytes, component)) }

    /// `folder` and `name` joined with one `/`: none after an empty folder (a name alone) or
    /// after one that ends in `/`. The one way the tool joins names.
    static func joining(_ folder: some Collection<UInt8>, _ name: some Collection<UInt8>) -> [UInt8] {
        var joined = Array(folder)
        joined.reserveCapacity(joined.count + 1 + name.count)
        if !joined.isEmpty && joined.last != UInt8(ascii: "/") { joined.append(UInt8(ascii: "/")) }
        joined.append(contentsOf: name)
        return joined
    }

    /// The path with `suffix` added to its last name (`x.plist` → `x.plist.json`).
    func appendingToName(_ suffix: String) -> BytePath { BytePath(bytes + suffix.utf8) }

    /// The last component (`a/b/` is `b`; `/` is `/`).
    var lastComponent: ArraySlice<UInt8> {
        let slash = UInt8(ascii: "/")
        let trimmed = bytes[..<(bytes.lastIndex { $0 != slash }.map { $0 + 1 } ?? bytes.startIndex)]
        guard !trimmed.isEmpty else { return bytes }
        return trimmed[(trimmed.lastIndex(of: slash).map { $0 + 1 } ?? trimmed.startIndex)...]
    }

    /// The folder the path is in (`a/b/c` is `a/b`), or nil for a name without a folder.
    var parent: BytePath? {
        guard let slash = bytes.lastIndex(of: UInt8(ascii: "/")), slash > bytes.startIndex else { return nil }
        return BytePath(bytes[..<slash])
    }

    /// The folder a file at this path is made in: its parent, `/` for a name in the root
    /// (`/x`), `.` for a name without a folder.
    var folder: BytePath {
        parent ?? BytePath(bytes.first == UInt8(ascii: "/") ? "/" : ".")
    }

    /// The path for a terminal: its UTF-8 as text, bytes that are not UTF-8 as `\xNN`, and what a
    /// terminal would act on escaped (`TerminalText`).
    var shown: String { TerminalText.escaped(bytes: bytes) }

    /// The path as text, a byte that is not UTF-8 as U+FFFD: for JSON, which holds text only.
    var replacingInvalidUTF8: String { String(decoding: bytes, as: UTF8.self) }

    /// Whether the path holds U+FFFD's UTF-8 (EF BF BD): what a name that is not UTF-8 becomes
    /// when it reaches the tool as text. A name that is still its own bytes (Latin-1 from a zip
    /// file) does not.
    var holdsReplacementCharacter: Bool {
        let bytes = self.bytes
        var index = bytes.startIndex
        while let lead = bytes[index...].firstIndex(of: 0xEF) {
            if bytes[lead...].starts(with: [0xEF, 0xBF, 0xBD]) { return true }
            index = lead + 1
        }
        return false
    }

    /// Whether the path's bytes are UTF-8.
    var isUTF8: Bool { bytes.withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) } != nil }
}

extension BytePath {
    /// `stat(2)` (following links) or, with `following: false`, `lstat(2)`; nil on failure,
    /// with `errno` set.
    func status(following: Bool = true) -> stat? {
        var status = stat()
        let result = withCString { following ? stat($0, &status) : lstat($0, &status) }
        return result == 0 ? status : nil
    }

    /// Where a symbolic link points, as bytes; nil when the path is not a link or cannot be read.
    /// At most `PATH_MAX` bytes, the longest path the kernel resolves: a longer target is cut
    /// there (it is only shown, in a failure's words).
    func linkTarget() -> [UInt8]? {
        var buffer = [UInt8](repeating: 0, count: Int(PATH_MAX))
        let count = withCString { path in
            buffer.withUnsafeMutableBufferPointer { out in
                out.withMemoryRebound(to: CChar.self) { readlink(path, $0.baseAddress!, $0.count) }
            }
        }
        return count >= 0 ? Array(buffer.prefix(count)) : nil
    }
}
