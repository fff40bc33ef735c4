import Foundation

#if canImport(Glibc)
import Glibc
#endif

struct HTTPReply {
    var status: Int
    /// Header names lower-cased; a repeated header keeps its last value.
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body as a JSON object, or nil.
    var jsonObject: [String: Any]? {
        (try? JSONSerialization.jsonObject(with: Data(body), options: [.fragmentsAllowed])) as? [String: Any]
    }
}

struct HTTPClientError: Error, CustomStringConvertible {
    var description: String
}

/// A blocking HTTP/1.1 client over a POSIX socket: one request per connection (`Connection: close`),
/// the reply read to EOF. Enough to test a server without pulling in an HTTP stack.
enum TestHTTPClient {
    static func request(
        port: Int, method: String, path: String, headers: [String: String] = [:],
        body: [UInt8]? = nil, timeoutSeconds: Int = 60
    ) throws -> HTTPReply {
        let fd = try connect(port: port, timeoutSeconds: timeoutSeconds)
        defer { close(fd) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        // A server may answer and close before reading everything (e.g. 413); keep reading the reply.
        _ = sendAll(fd, Array(head.utf8) + (body ?? []))
        let raw = try readToEnd(fd)
        return try parse(raw, method: method)
    }

    static func get(_ port: Int, _ path: String) throws -> HTTPReply {
        try request(port: port, method: "GET", path: path)
    }

    static func post(_ port: Int, _ path: String, _ body: [UInt8], contentType: String? = nil) throws -> HTTPReply {
        try request(
            port: port, method: "POST", path: path,
            headers: contentType.map { ["Content-Type": $0] } ?? [:], body: body)
    }

    static func connect(port: Int, timeoutSeconds: Int) throws -> Int32 {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw HTTPClientError(description: "socket: \(errno)") }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let rc = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard rc == 0 else {
            let error = errno
            close(fd)
            throw HTTPClientError(description: "connect to \(port): \(String(cString: strerror(error)))")
        }
        return fd
    }

    @discardableResult
    static func sendAll(_ fd: Int32, _ bytes: [UInt8]) -> Bool {
        var sent = 0
        while sent < bytes.count {
            let n = bytes[sent...].withUnsafeBytes { send(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            sent += n
        }
        return true
    }

    static func readToEnd(_ fd: Int32) throws -> [UInt8] {
        var raw: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            let n = chunk.withUnsafeMutableBytes { recv(fd, $0.baseAddress, $0.count, 0) }
            if n == 0 { break }
            if n < 0 {
                if errno == EINTR { continue }
                if errno == ECONNRESET, !raw.isEmpty { break }
                throw HTTPClientError(description: "recv: \(String(cString: strerror(errno))) after \(raw.count) bytes")
            }
            raw += chunk[..<n]
        }
        return raw
    }

    static func parse(_ raw: [UInt8], method: String) throws -> HTTPReply {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = (0...(max(0, raw.count - 4))).first(where: { raw.count >= 4 && Array(raw[$0..<$0 + 4]) == separator }) else {
            throw HTTPClientError(description: "no complete header in \(raw.count) bytes: \(String(decoding: raw, as: UTF8.self))")
        }
        let lines = String(decoding: raw[..<end], as: UTF8.self).components(separatedBy: "\r\n")
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw HTTPClientError(description: "bad status line \(lines[0])")
        }
        var headers: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        var body = Array(raw[(end + 4)...])
        if headers["transfer-encoding"]?.lowercased() == "chunked" {
            body = try chunks(of: body).flatMap { $0 }
        } else if let length = headers["content-length"].flatMap(Int.init), method != "HEAD" {
            guard body.count >= length else {
                throw HTTPClientError(description: "body truncated: \(body.count) of \(length) bytes")
            }
            body = Array(body.prefix(length))
        }
        return HTTPReply(status: status, headers: headers, body: body)
    }

    /// The chunks of a chunked body (RFC 9112 §7.1), in order, up to its last (empty) chunk;
    /// throws if it is cut short or framed wrongly.
    static func chunks(of body: [UInt8]) throws -> [[UInt8]] {
        var chunks: [[UInt8]] = []
        var at = 0
        while true {
            guard let lineEnd = (at..<max(at, body.count - 1)).first(where: { body[$0] == 13 && body[$0 + 1] == 10 }),
                let size = Int(String(decoding: body[at..<lineEnd], as: UTF8.self), radix: 16)
            else {
                throw HTTPClientError(description: "no chunk size line at byte \(at) of \(body.count)")
            }
            let start = lineEnd + 2
            guard body.count >= start + size + 2, body[start + size] == 13, body[start + size + 1] == 10 else {
                throw HTTPClientError(description: "chunk of \(size) bytes cut short at byte \(start) of \(body.count)")
            }
            if size == 0 { return chunks }
            chunks.append(Array(body[start..<(start + size)]))
            at = start + size + 2
        }
    }
}
