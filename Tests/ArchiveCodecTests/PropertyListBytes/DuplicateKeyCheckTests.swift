import TestSupport
import XCTest

@testable import ArchiveCodec

/// `BinaryPlistView.checkDuplicateKeys`, the exact check of repeated keys: what it refuses. (The
/// set it reuses between dictionaries is given back after a huge one: `SetReuseTests`.)
final class DuplicateKeyCheckTests: XCTestCase {
    /// A plist whose key texts repeat across distinct key objects (so the exact check runs):
    /// one dictionary of `large` keys, then `small` dictionaries of 13 keys (the fewest that
    /// the set checks), all in one array.
    private func plist(large: Int, small: Int, repeatInLarge: Bool = false) -> [UInt8] {
        var plist = TestPlistBuilder()
        let value = plist.integer(1)
        var keys = (0..<large).map { plist.string("key \($0)") }
        if repeatInLarge { keys[large - 1] = plist.add(.string("key 0")) }
        var elements = [plist.add(.dict(keys.map { (key: $0, value: value) }))]
        // Another object of text "key 0": equal key texts in distinct objects.
        elements.append(plist.add(.dict([(key: plist.add(.string("key 0")), value: value)])))
        let few = keys.prefix(13).map { (key: $0, value: value) }
        for _ in 0..<small { elements.append(plist.add(.dict(Array(few)))) }
        let top = plist.add(.array(elements))
        return plist.binary(top: top)
    }

    func testARepeatedKeyTextIsRefusedInALargeDictionary() {
        XCTAssertNoThrow(try BinaryPlist(bytes: plist(large: 100, small: 3)))
        XCTAssertNoThrow(try BinaryPlist(bytes: plist(large: 5_000, small: 300)))
        XCTAssertThrowsError(try BinaryPlist(bytes: plist(large: 100, small: 3, repeatInLarge: true))) { error in
            XCTAssertTrue("\(error)".contains("twice"), "\(error)")
        }
    }
}
