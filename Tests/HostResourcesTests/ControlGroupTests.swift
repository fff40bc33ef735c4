import XCTest

@testable import HostResources

/// The cgroup's limits read from file contents, as cgroup v2 and v1 write them: no cgroup needed.
final class ControlGroupTests: XCTestCase {
    private let cpuMax = "/sys/fs/cgroup/cpu.max"
    private let v1Quota = "/sys/fs/cgroup/cpu/cpu.cfs_quota_us"
    private let v1Period = "/sys/fs/cgroup/cpu/cpu.cfs_period_us"

    private func quota(_ files: [String: String]) -> ControlGroup.CPUQuota? {
        ControlGroup.cpuQuota(read: { files[$0] })
    }

    func testCPUQuotaOfCgroupV2() throws {
        let limited = try XCTUnwrap(quota([cpuMax: "150000 100000\n"]))
        XCTAssertEqual(limited.quota, 150_000)
        XCTAssertEqual(limited.period, 100_000)
        XCTAssertEqual(limited.cpus, 2, "1.5 CPUs round up")
        XCTAssertEqual(limited.source, "/sys/fs/cgroup/cpu.max 150000 100000")
        XCTAssertEqual(quota([cpuMax: "200000 100000\n"])?.cpus, 2)
        XCTAssertEqual(quota([cpuMax: "200001 100000\n"])?.cpus, 3)
        XCTAssertEqual(quota([cpuMax: "100000 100000"])?.cpus, 1)
        XCTAssertEqual(quota([cpuMax: "50000 100000\n"])?.cpus, 1, "a quota below its period is one CPU, not none")
        XCTAssertEqual(quota([cpuMax: "1000 100000\n"])?.cpus, 1)
        XCTAssertEqual(quota([cpuMax: "6400000 100000\n"])?.cpus, 64)
        XCTAssertEqual(quota([cpuMax: "\(Int.max) 1000000\n"])?.cpus, Int.max / 1_000_000 + 1, "no overflow")
    }

    func testNoCPUQuota() {
        XCTAssertNil(quota([:]), "no files: no limit")
        XCTAssertNil(quota([cpuMax: "max 100000\n"]), "v2's \"max\": no limit")
        XCTAssertNil(quota([cpuMax: "max\n"]))
        XCTAssertNil(quota([v1Quota: "-1\n", v1Period: "100000\n"]), "v1's -1: no limit")
    }

    func testMalformedCPUQuotaIsNoLimit() {
        for text in ["", "\n", "150000", "150000 100000 7", "1.5 100000", "150000 0", "0 100000", "-5 100000", "abc 100000", "150000 max"] {
            XCTAssertNil(quota([cpuMax: text]), text)
        }
        XCTAssertNil(quota([v1Quota: "150000\n"]), "v1 quota without its period")
        XCTAssertNil(quota([v1Quota: "150000\n", v1Period: "0\n"]))
        XCTAssertNil(quota([v1Quota: "lots\n", v1Period: "100000\n"]))
    }

    func testCgroupV2DecidesOverV1() {
        // A readable cpu.max decides, even when it says "no limit" or cannot be parsed.
        XCTAssertNil(quota([cpuMax: "max 100000\n", v1Quota: "100000\n", v1Period: "100000\n"]))
        XCTAssertNil(quota([cpuMax: "garbage", v1Quota: "100000\n", v1Period: "100000\n"]))
        XCTAssertEqual(quota([cpuMax: "300000 100000\n", v1Quota: "100000\n", v1Period: "100000\n"])?.cpus, 3)
    }

    func testCPUQuotaOfCgroupV1() throws {
        let limited = try XCTUnwrap(quota([v1Quota: "150000\n", v1Period: "100000\n"]))
        XCTAssertEqual(limited.cpus, 2)
        XCTAssertEqual(limited.source, "/sys/fs/cgroup/cpu/cpu.cfs_quota_us 150000 over cpu.cfs_period_us 100000")
        XCTAssertEqual(quota([v1Quota: "25000\n", v1Period: "50000\n"])?.cpus, 1)
        // The controller mounted together with cpuacct.
        let shared = "/sys/fs/cgroup/cpu,cpuacct/"
        XCTAssertEqual(quota([shared + "cpu.cfs_quota_us": "400000\n", shared + "cpu.cfs_period_us": "100000\n"])?.cpus, 4)
    }

    func testMemoryLimit() {
        func limit(_ files: [String: String]) -> Int? { ControlGroup.memoryLimit(read: { files[$0] }) }
        let v2 = "/sys/fs/cgroup/memory.max"
        let v1 = "/sys/fs/cgroup/memory/memory.limit_in_bytes"
        XCTAssertEqual(limit([v2: "1073741824\n"]), 1 << 30)
        XCTAssertEqual(limit([v1: "536870912\n"]), 512 << 20)
        XCTAssertNil(limit([:]))
        XCTAssertNil(limit([v2: "max\n"]), "v2's \"max\": no limit")
        XCTAssertNil(limit([v1: "9223372036854771712\n"]), "v1's unlimited")
        XCTAssertNil(limit([v2: "max\n", v1: "536870912\n"]), "v2 decides")
        XCTAssertNil(limit([v2: "1G\n"]))
        XCTAssertNil(limit([v2: "0\n"]))
    }
}
