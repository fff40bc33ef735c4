import XCTest

@testable import ArchiveCodec

/// `bytes` convert back equivalent under every number wrapping and nesting bound, with the
/// nesting measured; `stable` (an archive whose every entry is reachable): the archive
/// written back decodes to the very same JSON.
func assertReadableLossless(_ bytes: [UInt8], _ name: String, stable: Bool = true, file: StaticString = #filePath, line: UInt = #line) throws {
    let archive = try KeyedArchive(parsing: bytes)
    for numbers in [NumberWrapping.nonFinite, .integers, .all] {
        let plan = try archive.plan(view: .readable, pretty: false, numbers: numbers)
        let text = try archive.json(view: .readable, pretty: false, plan: plan)
        XCTAssertEqual(jsonNesting(text), plan.depth, "\(name): \(String(decoding: text, as: UTF8.self))", file: file, line: line)
        let back = try JSONDocument(parsing: text).archive(format: .binary)
        try assertEquivalent(bytes, back, file: file, line: line)
        try assertEquivalent(bytes, JSONDocument(parsing: text).archive(format: .xml), file: file, line: line)
        let written = try KeyedArchive(parsing: back)
        let again = try written.json(view: .readable, pretty: false, plan: written.plan(view: .readable, pretty: false, numbers: numbers))
        if stable { XCTAssertEqual(String(decoding: again, as: UTF8.self), String(decoding: text, as: UTF8.self), name, file: file, line: line) }
    }
    for bound in 2...9 {
        guard let plan = try? archive.plan(view: .readable, pretty: false, maxDepth: bound) else { continue }
        let text = try archive.json(view: .readable, pretty: false, plan: plan)
        XCTAssertEqual(jsonNesting(text), plan.depth, "\(name) at \(bound)", file: file, line: line)
        XCTAssertLessThanOrEqual(plan.depth, bound, "\(name) at \(bound)", file: file, line: line)
        try assertEquivalent(bytes, JSONDocument(parsing: text).archive(format: .binary), file: file, line: line)
    }
}
