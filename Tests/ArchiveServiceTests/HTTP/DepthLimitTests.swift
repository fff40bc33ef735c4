import ArchiveCodec
import ArchiveServer
import XCTest

/// The depth probe: the limit follows the stack size, and archives or documents at the limit convert
/// while one level more gets 413 with the depth and the limit. Written against the codec's own
/// depth measure, so it holds for any codec that honours the API contract.
final class DepthLimitTests: XCTestCase {
    private func depth(_ archive: [UInt8], view: ArchiveView = .readable) throws -> Int {
        try KeyedArchive(parsing: archive).depth(of: view)
    }

    /// Length of the longest linked list whose readable depth is at most `limit` (the readable view
    /// nests one object per node, so depth grows with length; the raw view stays flat).
    private func longestChain(withinDepth limit: Int, tail: TestArchives.Tail) throws -> Int {
        func fits(_ count: Int) throws -> Bool { try depth(TestArchives.linkedList(count: count, tail: tail)) <= limit }
        XCTAssertTrue(try fits(1), "a one-node list is deeper than \(limit)")
        var low = 1
        var high = 2
        while try fits(high) {
            low = high
            high *= 2
            guard high <= 4 * limit + 64 else {
                XCTFail("depth of a linked list does not grow with its length")
                return low
            }
        }
        while high - low > 1 {
            let middle = (low + high) / 2
            if try fits(middle) { low = middle } else { high = middle }
        }
        return low
    }

    /// `[[[ … ]]]` nested `levels` deep.
    private func nestedArrays(_ levels: Int) -> [UInt8] {
        Array((String(repeating: "[", count: levels) + String(repeating: "]", count: levels)).utf8)
    }

    private func assertTooDeep(_ reply: HTTPReply, depth: Int, limit: Int, file: StaticString = #filePath, line: UInt = #line) {
        XCTAssertEqual(reply.status, 413, reply.text, file: file, line: line)
        XCTAssertEqual(reply.header("Content-Type"), "application/problem+json", file: file, line: line)
        let problem = reply.jsonObject ?? [:]
        XCTAssertEqual(problem["type"] as? String, "urn:archive-service:problem:too-deep", file: file, line: line)
        XCTAssertEqual(problem["depth"] as? Int, depth, reply.text, file: file, line: line)
        XCTAssertEqual(problem["limit"] as? Int, limit, reply.text, file: file, line: line)
    }

    func testLimitIsTheCodecBudgetForTheConfiguredStack() throws {
        for stack in [StackBudget.minimumStackSize, 1 << 20, 8 << 20] {
            var configuration = ServerConfiguration()
            configuration.stackSize = stack
            XCTAssertEqual(configuration.depthLimit, StackBudget.maxDepth(stackSize: stack))
        }
        XCTAssertGreaterThan(StackBudget.maxDepth(stackSize: StackBudget.minimumStackSize), 0)
    }

    func testArchiveDeeperThanTheLimitGets413WhileAShallowerOneConverts() throws {
        let server = try TestServer { $0.stackSize = 512 << 10 }
        defer { server.stop() }
        let limit = server.server.depthLimit
        let deep = TestArchives.linkedList(count: try longestChain(withinDepth: limit, tail: .nil) * 2)
        assertTooDeep(try server.post("/v1/decode", deep), depth: try depth(deep), limit: limit)
        let shallow = TestArchives.linkedList(count: 10)
        XCTAssertEqual(try server.post("/v1/decode", shallow).status, 200)
        XCTAssertTrue(try server.get("/metrics").text.contains("archive_rejections_total{reason=\"too_deep\"} 1\n"))
    }

    /// `?path=` finds a value before the archive is placed: one that fits the stack is answered
    /// from an archive too deep to decode whole; one as deep as the whole is refused as the
    /// whole archive is.
    func testAValueThatFitsIsAnsweredFromAnArchiveTooDeepToDecode() throws {
        let server = try TestServer { $0.stackSize = 512 << 10 }
        defer { server.stop() }
        let limit = server.server.depthLimit
        let deep = TestArchives.linkedList(count: try longestChain(withinDepth: limit, tail: .nil) * 2)
        let value = try server.post("/v1/decode?path=.next.next.%24class", deep)
        XCTAssertEqual(value.status, 200, value.text)
        XCTAssertEqual(value.text, "\"Node\"\n")
        assertTooDeep(try server.post("/v1/decode?path=.next", deep), depth: try depth(deep), limit: limit)
    }

    /// Indented output grows with the square of the depth, so `pretty=1` is capped well below the stack
    /// limit while compact output of the same archive converts.
    func testPrettyOutputIsCappedForDeepArchives() throws {
        let server = try TestServer { $0.stackSize = 64 << 20 }
        defer { server.stop() }
        let count = try longestChain(withinDepth: 1_200, tail: .nil)
        let archive = TestArchives.linkedList(count: count)
        let archiveDepth = try depth(archive)
        XCTAssertGreaterThan(archiveDepth, 1_000)
        XCTAssertLessThanOrEqual(archiveDepth, server.server.depthLimit)
        let pretty = try server.post("/v1/decode?pretty=1", archive)
        XCTAssertEqual(pretty.status, 413, pretty.text.prefix(300) + "")
        XCTAssertEqual(pretty.jsonObject?["type"] as? String, "urn:archive-service:problem:too-deep-to-indent")
        XCTAssertEqual(pretty.jsonObject?["depth"] as? Int, archiveDepth)
        XCTAssertEqual(pretty.jsonObject?["limit"] as? Int, 1_000)
        XCTAssertEqual(try server.post("/v1/decode", archive).status, 200)
        let shallow = TestArchives.linkedList(count: try longestChain(withinDepth: 1_000, tail: .nil))
        XCTAssertEqual(try server.post("/v1/decode?pretty=1", shallow).status, 200)
    }

    func testLimitGrowsWithStackSize() throws {
        let small = try TestServer { $0.stackSize = StackBudget.minimumStackSize }
        defer { small.stop() }
        let large = try TestServer { $0.stackSize = StackBudget.minimumStackSize * 8 }
        defer { large.stop() }
        XCTAssertLessThan(small.server.depthLimit, large.server.depthLimit)

        let archive = TestArchives.linkedList(count: try longestChain(withinDepth: large.server.depthLimit, tail: .nil))
        let archiveDepth = try depth(archive)
        XCTAssertGreaterThan(archiveDepth, small.server.depthLimit)
        assertTooDeep(try small.post("/v1/decode", archive), depth: archiveDepth, limit: small.server.depthLimit)
        XCTAssertEqual(try large.post("/v1/decode", archive).status, 200)

        // Encoding does not recurse: a document far deeper than either decode limit encodes
        // on the small stack too.
        let document = nestedArrays(20 * large.server.depthLimit)
        XCTAssertEqual(try small.post("/v1/encode", document).status, 200)
    }

    /// At the smallest stack the server allows, the deepest archive under the limit really converts on
    /// a worker (no stack overflow, teardown included) and one level more is refused; cyclic and acyclic,
    /// several times over, and the process keeps serving. Encode takes a document far deeper still.
    func testAtTheSmallestStackTheLimitIsExactAndSafe() throws {
        try assertLimitIsExactAndSafe(stackSize: StackBudget.minimumStackSize)
    }

    /// The same at the default stack, where the reserve no longer hides an underestimated per-level
    /// cost: thousands of levels, each of which must fit.
    func testAtTheDefaultStackTheLimitIsExactAndSafe() throws {
        try assertLimitIsExactAndSafe(stackSize: ServerConfiguration().stackSize)
    }

    private func assertLimitIsExactAndSafe(stackSize: Int, file: StaticString = #filePath, line: UInt = #line) throws {
        try XCTSkipUnless(StackBudget.holdsForThisBuild, "runs at the stack's depth limit, measured without AddressSanitizer, whose frames are larger")
        let server = try TestServer {
            $0.stackSize = stackSize
            $0.workers = 1
        }
        defer { server.stop() }
        let limit = server.server.depthLimit
        XCTAssertEqual(limit, StackBudget.maxDepth(stackSize: stackSize))

        for tail in [TestArchives.Tail.nil, .cycle] {
            let count = try longestChain(withinDepth: limit, tail: tail)
            let atLimit = TestArchives.linkedList(count: count, tail: tail)
            let atLimitDepth = try depth(atLimit)
            XCTAssertLessThanOrEqual(atLimitDepth, limit)
            // Linked lists add one level per node, so the limit itself is reachable.
            XCTAssertGreaterThanOrEqual(atLimitDepth, limit - 2, "\(tail)")
            let over = TestArchives.linkedList(count: count + 1, tail: tail)
            let overDepth = try depth(over)
            XCTAssertGreaterThan(overDepth, limit)
            for _ in 0..<3 {
                let reply = try server.post("/v1/decode", atLimit)
                XCTAssertEqual(reply.status, 200, "\(tail): \(reply.text.prefix(300))")
                assertTooDeep(try server.post("/v1/decode", over), depth: overDepth, limit: limit)
            }
            let pretty = try server.post("/v1/decode?pretty=1", atLimit)
            if atLimitDepth <= 1_000 {
                XCTAssertEqual(pretty.status, 200, pretty.text.prefix(300) + "")
            } else {
                XCTAssertEqual(pretty.status, 413, pretty.text.prefix(300) + "")
                XCTAssertEqual(pretty.jsonObject?["type"] as? String, "urn:archive-service:problem:too-deep-to-indent")
                XCTAssertEqual(pretty.jsonObject?["limit"] as? Int, 1_000)
            }
            // The raw view of the same archive is flat: it converts even where the readable one may not.
            XCTAssertLessThanOrEqual(try depth(over, view: .raw), limit)
            XCTAssertEqual(try server.post("/v1/decode?view=raw", over).status, 200)
        }

        let document = nestedArrays(100_000)
        for format in ["binary", "xml"] {
            let reply = try server.post("/v1/encode?format=\(format)", document)
            XCTAssertEqual(reply.status, 200, reply.text.prefix(300) + "")
        }

        XCTAssertEqual(try server.get("/healthz").status, 200)
    }
}
