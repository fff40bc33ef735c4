import ArchiveCodec
import XCTest

final class DecodePolicyTests: XCTestCase {
    func testTheStackLimitIsTheStackBudgets() {
        for stack in [StackBudget.minimumStackSize, 1 << 20, 8 << 20, 512 << 20] {
            XCTAssertEqual(DecodePolicy(stackSize: stack).depthLimit, StackBudget.maxDepth(stackSize: stack))
        }
    }

    func testDepthsUpToEachLimitAreAllowed() {
        let policy = DecodePolicy(depthLimit: 5_000)
        XCTAssertNil(policy.refusal(depth: 5_000, pretty: false))
        XCTAssertNil(policy.refusal(depth: DecodePolicy.prettyDepthLimit, pretty: true))
        XCTAssertNil(policy.refusal(depth: 0, pretty: true))
    }

    func testPastTheStackLimitIsTooDeepIndentedOrNot() {
        let policy = DecodePolicy(depthLimit: 5_000)
        XCTAssertEqual(policy.refusal(depth: 5_001, pretty: false), .tooDeep(depth: 5_001, limit: 5_000))
        // Past both limits the stack's is named: its remedy, a bound, satisfies both.
        XCTAssertEqual(policy.refusal(depth: 5_001, pretty: true), .tooDeep(depth: 5_001, limit: 5_000))
    }

    func testIndentedOutputHasItsOwnLimitBelowTheStacks() {
        let policy = DecodePolicy(depthLimit: 5_000)
        let deeper = DecodePolicy.prettyDepthLimit + 1
        XCTAssertEqual(policy.refusal(depth: deeper, pretty: true), .tooDeepToIndent(depth: deeper, limit: DecodePolicy.prettyDepthLimit))
        XCTAssertNil(policy.refusal(depth: deeper, pretty: false))
    }

    func testTheSuggestedBoundNeverPassesTheLimit() {
        XCTAssertEqual(DecodePolicy.Refusal.tooDeep(depth: 20_000, limit: 16_648).suggestedMaxDepth, DecodePolicy.suggestedMaxDepth)
        XCTAssertEqual(DecodePolicy.Refusal.tooDeep(depth: 100, limit: 40).suggestedMaxDepth, 40)
        XCTAssertEqual(DecodePolicy(depthLimit: 0).refusal(depth: 1, pretty: false)?.suggestedMaxDepth, 0)
    }

    func testSkippingTheStackCheckKeepsTheIndentationLimit() {
        let unchecked = DecodePolicy(depthLimit: .max)
        XCTAssertNil(unchecked.refusal(depth: 10_000_000, pretty: false))
        XCTAssertEqual(unchecked.refusal(depth: 10_000_000, pretty: true), .tooDeepToIndent(depth: 10_000_000, limit: DecodePolicy.prettyDepthLimit))
    }
}
