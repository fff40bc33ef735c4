#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A file written where nothing can see it, and given its name only once it is whole: the one
/// way `archive-tool` writes a file it names (a batch's outputs, `-o FILE`), so that a refused
/// or interrupted conversion never leaves a file half-written or an existing one emptied.
///
/// Where the kernel can (Linux `O_TMPFILE`, and `/proc/self/fd` to name the file by), the file
/// has no name at all while it is written: it vanishes with the process if the process dies,
/// and naming it is one link into the folder (replacing a file: a link under the spare name,
/// then a rename over it, so only a whole copy can be left behind, in the moment between). Else it is a named temporary file beside its
/// destination (`temporary`), renamed over it at the end and removed on failure. The unnamed
/// way also takes the folder's lock half as often: creating a named file and renaming it each
/// take it, and on ext4 a creation holds it while the inode allocator passes over inodes freed
/// in the last minute (docs/benchmarks.md, "Many small files").
struct UnseenFile {
    /// The descriptor to write; it stays open until `name` or `discard`.
    let descriptor: Int32
    /// The named temporary file, for the fallback; nil while the file has no name.
    private let temporary: BytePath?

    /// Creates a file to become `path`, unnamed where the kernel allows it, else as
    /// `temporary` (which must not exist; it is created exclusively). Nil with `errno` set when
    /// neither can be created.
    static func create(becoming path: BytePath, temporary: BytePath, mode: mode_t = 0o644) -> UnseenFile? {
        if canNameUnnamedFiles {
            let descriptor = path.folder.withCString { open($0, Self.unnamedFileFlags | O_WRONLY | O_CLOEXEC, mode) }
            if descriptor >= 0 { return UnseenFile(descriptor: descriptor, temporary: nil) }
            // Not every file system makes unnamed files (EOPNOTSUPP, EISDIR before Linux 3.11):
            // the named way then says what is wrong, if anything is.
        }
        let descriptor = temporary.withCString { open($0, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
        return descriptor >= 0 ? UnseenFile(descriptor: descriptor, temporary: temporary) : nil
    }

    /// The same file, written through `descriptor` now (a `dup2` of the first one).
    func renumbered(_ descriptor: Int32) -> UnseenFile { UnseenFile(descriptor: descriptor, temporary: temporary) }

    /// Whether the file has no name while it is written (nothing to remove if the process dies).
    var isUnnamed: Bool { temporary == nil }

    /// Gives the whole file the name `path`, replacing what `path` named, and closes the
    /// descriptor when `closing`; 0 when done, else the `errno` of what failed (the file then
    /// gone, `path` as it was). `spare` is a name beside `path` that nothing has, used to replace
    /// an existing file with an unnamed one (a link cannot replace, a rename can).
    func name(_ path: BytePath, spare: @autoclosure () -> BytePath, closing: Bool = true) -> Int32 {
        guard temporary == nil else { return nameTemporary(path, closing: closing) }
        var failure: Int32 = 0
        if link(to: path) != 0 {
            failure = errno
            if failure == EEXIST {
                let spareName = spare()
                var linked = link(to: spareName) == 0
                if !linked, errno == EEXIST {
                    // A spare name a killed run left (its process number taken again) goes.
                    spareName.withCString { _ = unlink($0) }
                    linked = link(to: spareName) == 0
                }
                if !linked {
                    failure = errno
                } else if Self.renamed(spareName, path) != 0 {
                    failure = errno
                    spareName.withCString { _ = unlink($0) }
                } else {
                    failure = 0
                }
            }
        }
        if closing, close(descriptor) != 0, failure == 0 { failure = errno }
        return failure
    }

    /// Closes the descriptor (when `closing`) and removes the temporary file, if it has one.
    func discard(closing: Bool = true) {
        if closing { close(descriptor) }
        temporary?.withCString { _ = unlink($0) }
    }

    private func nameTemporary(_ path: BytePath, closing: Bool) -> Int32 {
        guard let temporary else { return 0 }
        var failure: Int32 = 0
        if closing, close(descriptor) != 0 { failure = errno }
        if failure == 0, Self.renamed(temporary, path) != 0 { failure = errno }
        if failure != 0 { temporary.withCString { _ = unlink($0) } }
        return failure
    }

    /// Links the unnamed file in as `name`, through `/proc/self/fd` (which any user may;
    /// `AT_EMPTY_PATH` would ask for CAP_DAC_READ_SEARCH).
    private func link(to name: BytePath) -> Int32 {
        "/proc/self/fd/\(descriptor)".withCString { from in
            name.withCString { to in linkat(AT_FDCWD, from, AT_FDCWD, to, AT_SYMLINK_FOLLOW) }
        }
    }

    private static func renamed(_ from: BytePath, _ to: BytePath) -> Int32 {
        from.withCString { from in to.withCString { to in rename(from, to) } }
    }

    /// Unnamed files are only made where they can be named: on Linux, when `/proc/self/fd` is
    /// there (it is not in every chroot or container). Read once per process.
    private static let canNameUnnamedFiles: Bool = unnamedFileFlags != 0 && access("/proc/self/fd", X_OK) == 0

    /// Linux's `O_TMPFILE` (`__O_TMPFILE | O_DIRECTORY`; Glibc's macro is not imported into
    /// Swift; `__O_TMPFILE` is 0o20000000 on x86-64 and AArch64, asm-generic's value); 0 elsewhere.
    #if os(Linux) && (arch(x86_64) || arch(arm64))
    private static let unnamedFileFlags: Int32 = 0o20000000 | O_DIRECTORY
    #else
    private static let unnamedFileFlags: Int32 = 0
    #endif
}
