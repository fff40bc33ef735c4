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

    /// Length of the longest linked list whose depth is at most `limit` (depth grows with length).
    private func longestChain(withinDepth limit: Int, tail: TestArchives.Tail, view: ArchiveView = .readable) throws -> Int {
        func fits(_ count: Int) throws -> Bool { try depth(TestArchives.linkedList(count: count, tail: tail), view: view) <= limit }
        XCTAssertTrue(try fits(1), "a one-node list is deeper than \(limit)")
        var low = 1, high = 2
        while try fits(high) { low = high; high *= 2 }
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

        let document = nestedArrays(large.server.depthLimit)
        let documentDepth = try JSONDocument(parsing: document).depth
        XCTAssertLessThanOrEqual(documentDepth, large.server.depthLimit)
        if documentDepth > small.server.depthLimit {
            assertTooDeep(try small.post("/v1/encode", document), depth: documentDepth, limit: small.server.depthLimit)
        }
        XCTAssertEqual(try large.post("/v1/encode", document).status, 200)
    }

    /// At the smallest stack the server allows, the deepest archive under the limit really converts on
    /// a worker (no stack overflow, teardown included) and one level more is refused; cyclic and acyclic,
    /// both views, several times over, and the process keeps serving.
    func testAtTheSmallestStackTheLimitIsExactAndSafe() throws {
        let server = try TestServer {
            $0.stackSize = StackBudget.minimumStackSize
            $0.workers = 1
        }
        defer { server.stop() }
        let limit = server.server.depthLimit
        XCTAssertEqual(limit, StackBudget.maxDepth(stackSize: StackBudget.minimumStackSize))

        for tail in [TestArchives.Tail.nil, .cycle] {
            for view in [ArchiveView.readable, .raw] {
                let query = view == .raw ? "/v1/decode?view=raw" : "/v1/decode"
                let count = try longestChain(withinDepth: limit, tail: tail, view: view)
                let atLimit = TestArchives.linkedList(count: count, tail: tail)
                let atLimitDepth = try depth(atLimit, view: view)
                XCTAssertLessThanOrEqual(atLimitDepth, limit)
                // Linked lists add one level per node, so the limit itself is reachable.
                XCTAssertGreaterThanOrEqual(atLimitDepth, limit - 2, "\(tail) \(view)")
                let over = TestArchives.linkedList(count: count + 1, tail: tail)
                let overDepth = try depth(over, view: view)
                XCTAssertGreaterThan(overDepth, limit)
                for _ in 0..<3 {
                    let reply = try server.post(query, atLimit)
                    XCTAssertEqual(reply.status, 200, "\(tail) \(view): \(reply.text.prefix(300))")
                    assertTooDeep(try server.post(query, over), depth: overDepth, limit: limit)
                }
            }
        }

        var levels = limit
        while try JSONDocument(parsing: nestedArrays(levels)).depth > limit { levels -= 1 }
        let document = nestedArrays(levels)
        XCTAssertEqual(try server.post("/v1/encode", document).status, 200)
        var overLevels = levels + 1
        while try JSONDocument(parsing: nestedArrays(overLevels)).depth <= limit { overLevels += 1 }
        let overDocument = nestedArrays(overLevels)
        assertTooDeep(try server.post("/v1/encode", overDocument),
                      depth: try JSONDocument(parsing: overDocument).depth, limit: limit)

        XCTAssertEqual(try server.get("/healthz").status, 200)
    }
}
