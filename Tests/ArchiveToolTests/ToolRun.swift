import Foundation
import TestSupport

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
}
