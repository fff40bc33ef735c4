/// Makes ids unique within a process and, by a random prefix, across the replicas of a
/// service: `<12 hex digits of the process>-<loop>-<count>`. One per event loop, used only on
/// its thread (no lock, no system call per id).
package struct RequestIDGenerator {
    private static let processPrefix: String = {
        var random = SystemRandomNumberGenerator()
        let bits = random.next() & 0xFFFF_FFFF_FFFF
        let hex = String(bits, radix: 16)
        return String(repeating: "0", count: 12 - hex.count) + hex
    }()
    private let prefix: String
    private var count: UInt64 = 0

    package init(loop: Int) { prefix = "\(Self.processPrefix)-\(loop)-" }

    package mutating func next() -> String {
        count &+= 1
        // Written into one new string: `prefix + String(count, radix: 16)` made two.
        let digits = (UInt64.bitWidth - count.leadingZeroBitCount + 3) / 4
        var prefix = prefix
        return prefix.withUTF8 { prefix in
            String(unsafeUninitializedCapacity: prefix.count + digits) { text in
                _ = text.initialize(fromContentsOf: prefix)
                var value = count
                for index in stride(from: prefix.count + digits - 1, through: prefix.count, by: -1) {
                    text[index] = Self.hexDigits[Int(value & 0xF)]
                    value >>= 4
                }
                return prefix.count + digits
            }
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
