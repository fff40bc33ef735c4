import XCTest

@testable import ArchiveCodec

/// `ReadableFormLowering.FormKey` reads a member key's bytes into the mapping's vocabulary:
/// each key it knows from its own text, and nothing else (a prefix, a longer key, another
/// mapping key, a data key).
final class ReadableFormKeyTests: XCTestCase {
    typealias FormKey = ReadableFormLowering.FormKey

    private func read(_ text: String) -> FormKey? {
        Array(text.utf8).withUnsafeBufferPointer { FormKey($0) }
    }

    func testEveryKeyIsReadFromItsOwnText() {
        let all = MappingKeys.all.map { String(describing: $0) }
        func formKey(spelled text: String) -> FormKey? { FormKey.allCases.first { String(describing: $0.text) == text } }
        for key in FormKey.allCases {
            let text = String(describing: key.text)
            XCTAssertTrue(all.contains(text), "\(text) is a mapping key")
            XCTAssertEqual(read(text), key, text)
            // `$name` is a prefix of `$named`: only another key's own text is read as it.
            XCTAssertEqual(read(String(text.dropLast())), formKey(spelled: String(text.dropLast())), "a prefix of \(text)")
            XCTAssertEqual(read(text + "x"), formKey(spelled: text + "x"), "longer than \(text)")
            XCTAssertNil(read("$" + text), "the data key \(text)")
        }
    }

    func testOtherKeysAreNotRead() {
        let known = Set(FormKey.allCases.map { String(describing: $0.text) })
        for key in MappingKeys.all.map({ String(describing: $0) }) where !known.contains(key) {
            XCTAssertNil(read(key), key)
        }
        XCTAssertNil(read(""))
        XCTAssertNil(read("$"))
    }

    /// Each companion goes with content keys, and only companions do.
    func testCompanionsGoWithContents() {
        for key in FormKey.allCases {
            XCTAssertEqual(key.role == .companion, !key.contents.isEmpty, String(describing: key.text))
            XCTAssertTrue(key.contents.allSatisfy { $0.role == .content }, String(describing: key.text))
        }
    }
}
