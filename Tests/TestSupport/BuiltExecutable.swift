import Foundation
import XCTest

/// An executable of this package, built next to the test bundle by `swift build` / `swift
/// test`; the test is skipped (not failed) when it is missing.
public func builtExecutable(_ name: String) throws -> URL {
    let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let candidate = exe.deletingLastPathComponent().appendingPathComponent(name)
    guard FileManager.default.isExecutableFile(atPath: candidate.path) else {
        throw XCTSkip("\(name) is not built next to the tests (\(candidate.path)); run `swift build` first")
    }
    return candidate
}
