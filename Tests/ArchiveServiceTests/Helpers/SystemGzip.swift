import Foundation

/// gzip and deflate streams made and read by the system's `gzip` (in every Debian), so tests of
/// the service's codings check against an implementation other than its own. A zlib stream
/// (HTTP's `deflate`) is gzip's deflate data in zlib's wrapper (RFC 1950): header, data, Adler-32.
enum SystemGzip {
    /// `bytes` gzip-compressed (one member, no file name) at `level`.
    static func compress(_ bytes: [UInt8], level: Int = 6) throws -> [UInt8] {
        try run(["-c", "-n", "-\(level)"], bytes)
    }

    /// The uncompressed contents of the gzip stream `bytes`; throws if gzip finds it corrupt.
    static func decompress(_ bytes: [UInt8]) throws -> [UInt8] {
        try run(["-d", "-c"], bytes)
    }

    /// The bare deflate data (RFC 1951) inside a gzip member without optional fields.
    static func deflateData(ofMember member: [UInt8]) -> [UInt8] {
        precondition(member.count >= 18 && member[3] == 0, "a gzip member without optional fields")
        return Array(member[10..<(member.count - 8)])
    }

    /// `bytes` as a zlib stream, deflated by gzip.
    static func zlibCompress(_ bytes: [UInt8]) throws -> [UInt8] {
        let adler = adler32(bytes)
        return [0x78, 0x9C] + deflateData(ofMember: try compress(bytes)) + withUnsafeBytes(of: adler.bigEndian, Array.init)
    }

    /// The contents of the zlib stream `bytes`, read by gzip: its deflate data is rewrapped as a
    /// gzip member, and the Adler-32 of the zlib trailer is checked against what gzip inflated.
    /// A gzip trailer states the output's CRC-32 and length, unknown until the data is inflated:
    /// a first pass with a blank trailer gives the output (gzip writes it, then reports the CRC
    /// mismatch), a second with the true trailer must pass gzip's own checks.
    static func zlibDecompress(_ bytes: [UInt8]) throws -> [UInt8] {
        guard bytes.count >= 6, (UInt16(bytes[0]) << 8 | UInt16(bytes[1])) % 31 == 0, bytes[0] & 0x0F == 8 else {
            throw HTTPClientError(description: "not a zlib header: \(Array(bytes.prefix(2)))")
        }
        let data = Array(bytes[2..<(bytes.count - 4)])
        let header: [UInt8] = [0x1F, 0x8B, 0x08, 0, 0, 0, 0, 0, 0, 0x03]
        let firstPass = try run(["-d", "-c"], header + data + [UInt8](repeating: 0, count: 8), allowFailure: true)
        let trailer =
            withUnsafeBytes(of: crc32(firstPass).littleEndian, Array.init)
            + withUnsafeBytes(of: UInt32(truncatingIfNeeded: firstPass.count).littleEndian, Array.init)
        let plain = try decompress(header + data + trailer)
        let stated = bytes.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard stated == adler32(plain) else { throw HTTPClientError(description: "the zlib stream's Adler-32 does not match") }
        return plain
    }

    static func crc32(_ bytes: [UInt8]) -> UInt32 {
        var crc: UInt32 = 0xFFFF_FFFF
        for byte in bytes {
            crc ^= UInt32(byte)
            for _ in 0..<8 { crc = crc & 1 == 1 ? (crc >> 1) ^ 0xEDB8_8320 : crc >> 1 }
        }
        return ~crc
    }

    static func adler32(_ bytes: [UInt8]) -> UInt32 {
        var a: UInt32 = 1
        var b: UInt32 = 0
        for byte in bytes {
            a = (a + UInt32(byte)) % 65521
            b = (b + a) % 65521
        }
        return b << 16 | a
    }

    private static func run(_ arguments: [String], _ input: [UInt8], allowFailure: Bool = false) throws -> [UInt8] {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("gzip-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let inputFile = directory.appendingPathComponent("in")
        let outputFile = directory.appendingPathComponent("out")
        try Data(input).write(to: inputFile)
        _ = FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = arguments
        process.standardInput = try FileHandle(forReadingFrom: inputFile)
        process.standardOutput = try FileHandle(forWritingTo: outputFile)
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 || allowFailure else {
            throw HTTPClientError(description: "gzip \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
        }
        return [UInt8](try Data(contentsOf: outputFile))
    }
}
