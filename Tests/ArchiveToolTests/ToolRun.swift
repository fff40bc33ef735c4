import Foundation
import TestSupport

#if canImport(Glibc)
import Glibc
#endif

/// Runs the built `archive-tool` executable for a test.
enum ToolRun {
    static func tool() throws -> URL {
        let built = builtExecutable("archive-tool")
        guard built.exists else { throw MissingTool.error("archive-tool is not built next to the tests (\(built.url.path)); run `swift build` first") }
        return built.url
    }

    /// Runs the tool with stdout going to `output` (opened for appending to what it holds)
    /// and returns the exit status and stderr.
    static func run(_ arguments: [String], stdout output: URL, stdin input: FileHandle? = nil) throws -> (status: Int32, stderr: String) {
        if !FileManager.default.fileExists(atPath: output.path) {
            FileManager.default.createFile(atPath: output.path, contents: nil)
        }
        let handle = try FileHandle(forWritingTo: output)
        defer { try? handle.close() }
        try handle.seekToEnd()
        let process = Process()
        process.executableURL = try tool()
        process.arguments = arguments
        process.standardOutput = handle
        if let input { process.standardInput = input }
        let errors = Pipe()
        process.standardError = errors
        try process.run()
        let text = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return (process.terminationStatus, text)
    }

    /// A run that could not be started: a failure of the test, not a skip.
    struct Failure: Error {
        let message: String
    }

    /// Runs the tool with arguments given as bytes, as a shell passes a file name that is not
    /// UTF-8 (`Process` takes text, and would pass such a name changed), stdout going to
    /// `output` (appended to); the exit status and stderr, its bytes decoded as UTF-8 (a byte
    /// that is not UTF-8 reads as U+FFFD).
    static func run(bytes arguments: [[UInt8]], stdout output: URL) throws -> (status: Int32, stderr: String) {
        let tool = try tool()
        let out = open(output.path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard out >= 0 else { throw Failure(message: "cannot open \(output.path)") }
        defer { close(out) }
        var errors: [Int32] = [0, 0]
        guard pipe(&errors) == 0 else { throw Failure(message: "cannot make a pipe") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, out, 1)
        posix_spawn_file_actions_adddup2(&actions, errors[1], 2)
        posix_spawn_file_actions_addclose(&actions, errors[0])
        let words = [Array(tool.path.utf8)] + arguments
        let argv: [UnsafeMutablePointer<CChar>?] =
            words.map { word in
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: word.count + 1)
                for (index, byte) in word.enumerated() { copy[index] = CChar(bitPattern: byte) }
                copy[word.count] = 0
                return copy
            } + [nil]
        defer { for word in argv { word?.deallocate() } }
        var process: pid_t = 0
        let spawned = posix_spawn(&process, argv[0]!, &actions, nil, argv, environ)
        close(errors[1])
        let reading = FileHandle(fileDescriptor: errors[0], closeOnDealloc: true)
        guard spawned == 0 else { throw Failure(message: "cannot run \(tool.path): \(String(cString: strerror(spawned)))") }
        let text = String(decoding: reading.readDataToEndOfFile(), as: UTF8.self)
        var status: Int32 = 0
        while waitpid(process, &status, 0) < 0 && errno == EINTR {}
        return ((status >> 8) & 0xFF, text)
    }
}
