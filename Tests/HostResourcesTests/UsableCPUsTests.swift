import XCTest

@testable import HostResources

/// The CPUs the defaults of workers and event loops follow, from file contents: the affinity mask
/// of /proc/self/status and the cgroup's CPU quota, whichever is lower.
final class UsableCPUsTests: XCTestCase {
    private func status(_ list: String) -> String {
        "Name:\tarchive-service\nThreads:\t1\nCpus_allowed:\tffff,ffffffff\nCpus_allowed_list:\t\(list)\nMems_allowed_list:\t0\n"
    }

    private func cpus(_ files: [String: String], online: Int = 64) -> UsableCPUs {
        UsableCPUs(read: { files[$0] }, onlineCores: online)
    }

    func testCPUList() {
        XCTAssertEqual(UsableCPUs.count(cpuList: "0"), 1)
        XCTAssertEqual(UsableCPUs.count(cpuList: "0-63"), 64)
        XCTAssertEqual(UsableCPUs.count(cpuList: "0-3,8-11"), 8)
        XCTAssertEqual(UsableCPUs.count(cpuList: "2,5,7-8"), 4)
        for bad in ["", ",", "0-", "-3", "3-1", "0,,2", "a-b", "0-3:2", "+1", "0 - 3", "0-2000000"] {
            XCTAssertNil(UsableCPUs.count(cpuList: bad), bad)
        }
        XCTAssertEqual(UsableCPUs.allowedList(status: status("0-3,8-11")), "0-3,8-11")
        XCTAssertNil(UsableCPUs.allowedList(status: "Name:\tx\nCpus_allowed:\tf\n"))
    }

    func testAffinityWithoutQuota() {
        let found = cpus(["/proc/self/status": status("0-3")])
        XCTAssertEqual(found, UsableCPUs(count: 4, source: "affinity 0-3"))
        XCTAssertEqual(cpus(["/proc/self/status": status("0-3"), "/sys/fs/cgroup/cpu.max": "max 100000\n"]).count, 4)
    }

    func testQuotaBelowAffinity() {
        // A pod limited to 1.5 CPUs on a 64-core node.
        let found = cpus(["/proc/self/status": status("0-63"), "/sys/fs/cgroup/cpu.max": "150000 100000\n"])
        XCTAssertEqual(found, UsableCPUs(count: 2, source: "cgroup /sys/fs/cgroup/cpu.max 150000 100000"))
        XCTAssertEqual(cpus(["/proc/self/status": status("0-63"), "/sys/fs/cgroup/cpu.max": "50000 100000\n"]).count, 1)
        let v1 = ["/proc/self/status": status("0-63"), "/sys/fs/cgroup/cpu/cpu.cfs_quota_us": "100000\n", "/sys/fs/cgroup/cpu/cpu.cfs_period_us": "100000\n"]
        XCTAssertEqual(cpus(v1).count, 1)
    }

    func testAffinityBelowQuota() {
        // taskset -c 0,1 inside a container allowed 8 CPUs.
        let found = cpus(["/proc/self/status": status("0-1"), "/sys/fs/cgroup/cpu.max": "800000 100000\n"])
        XCTAssertEqual(found, UsableCPUs(count: 2, source: "affinity 0-1"))
        // Equal: the quota is named.
        XCTAssertEqual(cpus(["/proc/self/status": status("0-1"), "/sys/fs/cgroup/cpu.max": "200000 100000\n"]).source, "cgroup /sys/fs/cgroup/cpu.max 200000 100000")
    }

    func testOnlineCoresWhenTheMaskCannotBeRead() {
        XCTAssertEqual(cpus([:], online: 64), UsableCPUs(count: 64, source: "online cores"))
        XCTAssertEqual(cpus(["/proc/self/status": "Name:\tx\n"], online: 8).count, 8)
        XCTAssertEqual(cpus(["/proc/self/status": status("garbage")], online: 8).count, 8)
        XCTAssertEqual(cpus(["/sys/fs/cgroup/cpu.max": "150000 100000\n"], online: 64).count, 2)
        XCTAssertEqual(cpus([:], online: 0).count, 1, "at least one")
    }

    func testThisProcess() {
        let current = UsableCPUs.current
        XCTAssertGreaterThanOrEqual(current.count, 1)
        XCTAssertLessThanOrEqual(current.count, UsableCPUs.onlineCores)
        XCTAssertFalse(current.source.isEmpty)
        #if os(Linux)
        XCTAssertNotEqual(current.source, "online cores", "/proc/self/status has the affinity mask")
        #endif
    }
}
