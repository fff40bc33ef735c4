#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// The files a batch converts and where each goes: the paths given, and with `--recursive`
/// the files inside the folders given (names starting with `.` left out, symbolic links to
/// folders not followed), each folder's layout mirrored under the output folder.
///
/// Names are decided before anything converts, so a run names its outputs the same however
/// its jobs interleave. Two inputs that would take one name (`a/x.plist` and `b/x.plist`) are
/// told apart by a number (`x.plist-2.json`), and the renaming is said.
struct BatchInputs {
    struct Item {
        /// The input's path as given or found.
        let path: String
        /// The output's path under the output folder.
        let output: String
    }

    private(set) var items: [Item] = []
    /// Paths that could not be taken (a folder without `--recursive`, a folder that cannot
    /// be listed), with the reason: failures of the run like any file's, said on stderr.
    private(set) var refused: [(path: String, message: String)] = []
    /// Outputs renamed to keep them apart, as lines to say.
    private(set) var renamed: [String] = []

    /// `name` is the output's name for an input's file name (`save.plist` → `save.plist.json`).
    init(paths: [String], recursive: Bool, into folder: String, name: (String) -> String) {
        var taken = Set<String>()
        for path in paths {
            var status = stat()
            // What is not a folder (or cannot be looked at) is an input: reading it says why not.
            guard stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else {
                add(path, relative: name(Self.lastComponent(of: path)), folder: folder, taken: &taken)
                continue
            }
            guard recursive else {
                refused.append((path, "a folder: add --recursive to convert the files in it"))
                continue
            }
            for (file, relative) in walk(path) {
                let components = relative.split(separator: "/", omittingEmptySubsequences: true)
                let directory = components.dropLast().joined(separator: "/")
                let output = name(String(components.last!))
                add(file, relative: directory.isEmpty ? output : directory + "/" + output, folder: folder, taken: &taken)
            }
        }
    }

    private mutating func add(_ path: String, relative: String, folder: String, taken: inout Set<String>) {
        var output = folder + "/" + relative
        if !taken.insert(output).inserted {
            let first = output
            var number = 2
            repeat {
                output = Self.numbered(folder + "/" + relative, number)
                number += 1
            } while !taken.insert(output).inserted
            renamed.append("\(path) → \(output) (\(first) is another input's)")
        }
        items.append(Item(path: path, output: output))
    }

    /// `x.plist.json` numbered `n`: `x.plist-n.json` (the number before the last extension).
    static func numbered(_ path: String, _ number: Int) -> String {
        let name = lastComponent(of: path)
        guard let dot = name.lastIndex(of: "."), dot != name.startIndex else { return path + "-\(number)" }
        let stem = path.dropLast(name.distance(from: dot, to: name.endIndex))
        return stem + "-\(number)" + name[dot...]
    }

    /// The last component of `path` (`a/b/` is `b`).
    static func lastComponent(of path: String) -> String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    /// The regular files under `root`, with their paths relative to it, in name order; a
    /// folder that cannot be listed is refused. Iterative: any depth of folders.
    private mutating func walk(_ root: String) -> [(path: String, relative: String)] {
        var files: [(path: String, relative: String)] = []
        var pending: [(path: String, relative: String)] = [(root, "")]
        while let (folder, relative) = pending.popLast() {
            guard let directory = opendir(folder) else {
                refused.append((folder, FileFailure("list", folder, errno: errno).messageAfterPath))
                continue
            }
            var names: [String] = []
            while let entry = readdir(directory) {
                let bytes = withUnsafeBytes(of: entry.pointee.d_name) { Array($0.prefix { $0 != 0 }) }
                guard bytes.first != UInt8(ascii: ".") else { continue }
                // Paths are text here: a name that is not UTF-8 would be read back as another
                // name, and the file silently left out. It is refused instead, by name.
                guard let name = String(validating: bytes, as: UTF8.self) else {
                    let shown = String(decoding: bytes, as: UTF8.self)
                    let path = folder.hasSuffix("/") ? folder + shown : folder + "/" + shown
                    refused.append((path, "its name is not UTF-8, which this tool cannot name a file by: rename it, or convert it alone from stdin (archive-tool decode < FILE)"))
                    continue
                }
                names.append(name)
            }
            closedir(directory)
            var folders: [(path: String, relative: String)] = []
            for name in names.sorted() {
                let path = folder.hasSuffix("/") ? folder + name : folder + "/" + name
                let inside = relative.isEmpty ? name : relative + "/" + name
                var status = stat()
                guard lstat(path, &status) == 0 else {
                    // Gone since it was listed, or not to be looked at: said, not skipped.
                    refused.append((path, FileFailure("look at", path, errno: errno).messageAfterPath))
                    continue
                }
                switch status.st_mode & S_IFMT {
                case S_IFDIR: folders.append((path, inside))
                case S_IFREG: files.append((path, inside))
                case S_IFLNK:
                    // A link to a file is taken; a link to a folder is not followed (it may loop).
                    if stat(path, &status) == 0, status.st_mode & S_IFMT == S_IFREG { files.append((path, inside)) }
                default: break
                }
            }
            // Walked in name order: the last pushed is taken first.
            pending += folders.reversed()
        }
        return files
    }
}
