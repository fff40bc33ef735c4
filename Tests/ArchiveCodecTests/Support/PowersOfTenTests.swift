import XCTest

@testable import ArchiveCodec

/// `PowersOfTen.integers` is every power of ten a `UInt64` holds, in order.
final class PowersOfTenTests: XCTestCase {
    func testEveryPowerAUInt64Holds() {
        XCTAssertEqual(PowersOfTen.integers.first, 1)
        for (index, power) in PowersOfTen.integers.enumerated().dropFirst() {
            XCTAssertEqual(power, PowersOfTen.integers[index - 1] * 10, "10^\(index)")
        }
        XCTAssertTrue(PowersOfTen.integers.last!.multipliedReportingOverflow(by: 10).overflow)
    }
}
