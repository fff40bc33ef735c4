import XCTest

@testable import ArchiveCodec

final class ValueWrapperTests: XCTestCase {
    /// `named` looks a wrapper up among the names of its length, which it lists by hand: every
    /// wrapper must be found by its own name, and nothing else by a name one byte off.
    func testEveryWrapperIsFoundByItsName() {
        for wrapper in ValueWrapper.allCases {
            let name = Array(wrapper.name.description.utf8)
            XCTAssertEqual(name.withUnsafeBufferPointer(ValueWrapper.named), wrapper, "\(wrapper.name)")
            XCTAssertNil((name + [UInt8(ascii: "x")]).withUnsafeBufferPointer(ValueWrapper.named))
            XCTAssertNil(Array(name.dropLast()).withUnsafeBufferPointer(ValueWrapper.named))
            XCTAssertNil((["$$"].flatMap(\.utf8) + name.dropFirst()).withUnsafeBufferPointer(ValueWrapper.named))
        }
        for other in [MappingKeys.identity, MappingKeys.reference, MappingKeys.className, MappingKeys.classes, MappingKeys.runs, MappingKeys.top] {
            XCTAssertNil(Array(other.description.utf8).withUnsafeBufferPointer(ValueWrapper.named), "\(other)")
        }
    }
}
