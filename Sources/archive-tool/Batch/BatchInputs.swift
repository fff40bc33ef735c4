#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files a batch converts and where each goes: the paths given, and with `--recursive`
/// the files inside the folders given (names starting with `.` left out, symbolic links to
/// folders not followed and said so, as are what is neither a file nor a folder), each
/// folder's layout mirrored under the output folder.
///
/// Paths are bytes (`BytePath`): a name that is not UTF-8 is found, read and written under
/// its own bytes like any other. Names are decided before anything converts, so a run names
/// its outputs the same however its jobs interleave. Two inputs that would take one name
/// (`a/x.plist` and `b/x.plist`) are told apart by a number (`x.plist-2.json`), and the
/// renaming is said. A walk of N entries takes time and memory in proportion to N.
struct BatchInputs {
    struct Item {
        /// The input's path as given or found.
        let path: BytePath
        /// The output's path under the output folder.
        let output: BytePath
    }

    private(set) var items: [Item] = []
    /// Paths that could not be taken (a folder without `--recursive`, a folder that cannot
    /// be listed, a link that leads nowhere), with the reason: failures of the run like any
    /// file's, said on stderr.
    private(set) var refused: [(path: BytePath, message: String)] = []
    /// Outputs renamed to keep them apart, as lines to say, their paths shown as a terminal
    /// takes them (`BytePath.shown`).
    private(set) var renamed: [String] = []
    /// What a walk found and did not take, as lines to say (not failures: nothing there was
    /// asked for by name): a link to a folder (it may lead round in a loop, or out of the
    /// folder given), a pipe, a socket, a device.
    private(set) var passedOver: [String] = []

    /// `name` is the output's name for an input's file name (`save.plist` → `save.plist.json`).
    init(paths: [BytePath], recursive: Bool, into folder: BytePath, name: (ArraySlice<UInt8>) -> [UInt8]) {
        var taken = Set<BytePath>()
        for path in paths {
            // What is not a folder (or cannot be looked at) is an input: reading it says why not.
            guard let status = path.status(), status.st_mode & S_IFMT == S_IFDIR else {
                add(path, output: folder.appending(name(path.lastComponent)), taken: &taken)
                continue
            }
            guard recursive else {
                refused.append((path, "a folder: add --recursive to convert the files in it"))
                continue
            }
            for file in walk(path) {
                let directory = file.folder.isEmpty ? folder : folder.appending(file.folder)
                add(file.path, output: directory.appending(name(file.name[...])), taken: &taken)
            }
        }
    }

    private mutating func add(_ path: BytePath, output: BytePath, taken: inout Set<BytePath>) {
        var output = output
        if !taken.insert(output).inserted {
            let first = output
            var number = 2
            repeat {
                output = Self.numbered(first, number)
                number += 1
            } while !taken.insert(output).inserted
            renamed.append("\(path.shown) → \(output.shown) (\(first.shown) is another input's)")
        }
        items.append(Item(path: path, output: output))
    }

    /// What a file that is not a regular file or a folder is, in words.
    private static func kind(of status: stat) -> String {
        switch status.st_mode & S_IFMT {
        case S_IFIFO: "a named pipe"
        case S_IFSOCK: "a socket"
        case S_IFCHR: "a character device"
        case S_IFBLK: "a block device"
        default: "neither a file nor a folder"
        }
    }

    /// `x.plist.json` numbered `n`: `x.plist-n.json` (the number before the last extension).
    static func numbered(_ path: BytePath, _ number: Int) -> BytePath {
        let name = path.lastComponent
        let suffix = Array("-\(number)".utf8)
        guard let dot = name.lastIndex(of: UInt8(ascii: ".")), dot != name.startIndex else { return BytePath(path.bytes + suffix) }
        return BytePath(path.bytes[..<dot] + suffix + path.bytes[dot...])
    }

    /// A file found in a walk: its path, and its folder (relative to the folder walked, empty
    /// at its top) and name, which its output takes under the output folder.
    private struct Found {
        let path: BytePath
        let folder: [UInt8]
        let name: [UInt8]
    }

    /// The regular files under `root` (and the links to them), in name order (by bytes); a
    /// folder that cannot be listed and a link that leads nowhere are refused. Iterative: any
    /// depth of folders.
    private mutating func walk(_ root: BytePath) -> [Found] {
        var files: [Found] = []
        var pending: [(path: BytePath, relative: [UInt8])] = [(root, [])]
        while let (folder, relative) = pending.popLast() {
            guard let directory = folder.withCString({ opendir($0) }) else {
                refused.append((folder, FileFailure("list", folder, errno: errno).messageAfterPath))
                continue
            }
            var names: [[UInt8]] = []
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                guard name.first != UInt8(ascii: ".") else { continue }
                names.append(name)
            }
            closedir(directory)
            names.sort { $0.lexicographicallyPrecedes($1) }
            var folders: [(path: BytePath, relative: [UInt8])] = []
            for name in names {
                let path = folder.appending(name)
                guard let status = path.status(following: false) else {
                    // Gone since it was listed, or not to be looked at: said, not skipped.
                    refused.append((path, FileFailure("look at", path, errno: errno).messageAfterPath))
                    continue
                }
                switch status.st_mode & S_IFMT {
                case S_IFDIR: folders.append((path, BytePath.joining(relative, name)))
                case S_IFREG: files.append(Found(path: path, folder: relative, name: name))
                case S_IFLNK:
                    // A link to a file is taken; a link to a folder is not followed (it may loop).
                    // One that leads nowhere (its target missing, or links round in a loop) is
                    // a file the run cannot convert: said, as a file that cannot be read is.
                    guard let target = path.status() else {
                        refused.append((path, FileFailure("follow", path, errno: errno).messageAfterPath))
                        continue
                    }
                    switch target.st_mode & S_IFMT {
                    case S_IFREG: files.append(Found(path: path, folder: relative, name: name))
                    case S_IFDIR:
                        let shown = path.linkTarget().map { " (\(TerminalText.escaped(bytes: $0)))" } ?? ""
                        passedOver.append("\(path.shown) is a link to a folder\(shown): not followed; give that folder to convert its files")
                    default: passedOver.append("\(path.shown) leads to \(Self.kind(of: target)): not converted")
                    }
                default: passedOver.append("\(path.shown) is \(Self.kind(of: status)): not converted")
                }
            }
            // Walked in name order: the last pushed is taken first.
            pending += folders.reversed()
        }
        return files
    }
}
