import ArchiveCodec
import Foundation
import HostResources
import Logging
import XCTest

@testable import ArchiveServer

final class ServerConfigurationTests: XCTestCase {
    func testByteSizes() {
        XCTAssertEqual(ServerConfiguration.parseByteSize("524288"), 524_288)
        XCTAssertEqual(ServerConfiguration.parseByteSize("512K"), 512 << 10)
        XCTAssertEqual(ServerConfiguration.parseByteSize("512k"), 512 << 10)
        XCTAssertEqual(ServerConfiguration.parseByteSize("64M"), 64 << 20)
        XCTAssertEqual(ServerConfiguration.parseByteSize("8MiB"), 8 << 20)
        XCTAssertEqual(ServerConfiguration.parseByteSize("1G"), 1 << 30)
        XCTAssertEqual(ServerConfiguration.parseByteSize(" 2m "), 2 << 20)
        XCTAssertEqual(ServerConfiguration.parseByteSize("100B"), 100)
        for bad in ["", "K", "-1", "1.5M", "12X", "M12", "99999999999999999999G", "0x100"] {
            XCTAssertNil(ServerConfiguration.parseByteSize(bad), bad)
        }
    }

    func testDefaultsServeOn8080AndValidate() throws {
        let configuration = ServerConfiguration()
        XCTAssertEqual(configuration.port, 8080)
        XCTAssertEqual(configuration.host, "0.0.0.0")
        XCTAssertEqual(configuration.workers, UsableCPUs.current.count)
        XCTAssertEqual(configuration.eventLoops, min(4, UsableCPUs.current.count))
        XCTAssertNoThrow(try configuration.validate())
        XCTAssertGreaterThan(configuration.depthLimit, 1_000)
    }

    func testValidationRefusesUnsafeOrAbsurdValues() {
        func refuses(_ change: (inout ServerConfiguration) -> Void, _ fragment: String, line: UInt = #line) {
            var configuration = ServerConfiguration()
            change(&configuration)
            XCTAssertThrowsError(try configuration.validate(), line: line) { error in
                XCTAssertTrue("\(error)".contains(fragment), "\(error)", line: line)
            }
        }
        refuses({ $0.stackSize = StackBudget.minimumStackSize - 1 }, "stack size")
        refuses({ $0.stackSize = 2 << 30 }, "stack size")
        refuses({ $0.port = 70_000 }, "port")
        refuses({ $0.workers = 0 }, "workers")
        refuses({ $0.eventLoops = 0 }, "event loops")
        refuses({ $0.queueLimit = -1 }, "queue limit")
        refuses({ $0.maxBodySize = 0 }, "max body size")
        refuses({ $0.maxParts = 0 }, "max parts")
        refuses({ $0.maxParts = 100_001 }, "max parts")
        refuses({ $0.maxPartSize = 0 }, "max part size")
        refuses({ $0.timeout = 0 }, "timeout")
        refuses({ $0.host = "" }, "host")
        var minimum = ServerConfiguration()
        minimum.stackSize = StackBudget.minimumStackSize
        XCTAssertNoThrow(try minimum.validate())
    }

    func testServerRefusesInvalidConfigurationAndUnusableHost() throws {
        var configuration = ServerConfiguration()
        configuration.stackSize = 1024
        XCTAssertThrowsError(try ArchiveHTTPServer(configuration: configuration, logger: .init(label: "t")))
        configuration = ServerConfiguration()
        configuration.host = "no-such-host.invalid"
        configuration.port = 0
        let server = try ArchiveHTTPServer(configuration: configuration, logger: .init(label: "t"))
        XCTAssertThrowsError(try server.start())
    }
}
