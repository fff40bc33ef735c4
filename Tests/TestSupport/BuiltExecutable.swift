import Foundation

/// An executable of this package, built next to the test bundle by `swift build` / `swift
/// test`. This target is built by every `swift build`, release included, where XCTest does not
/// exist: so it says only where the executable is or would be, and the tests skip themselves
/// when it is missing (`MissingTool.error`: a failure under `ARCHIVE_TESTS_REQUIRE_TOOLS=1`).
public func builtExecutable(_ name: String) -> (url: URL, exists: Bool) {
    let exe = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    let candidate = exe.deletingLastPathComponent().appendingPathComponent(name)
    return (candidate, FileManager.default.isExecutableFile(atPath: candidate.path))
}
