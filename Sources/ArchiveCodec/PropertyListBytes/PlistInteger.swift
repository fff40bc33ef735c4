/// An integer as a property list stores it: signed 64-bit, or unsigned 64-bit for values
/// above `Int64.max` (Apple writes those in the 16-byte form).
struct PlistInteger: Hashable {
    var bits: UInt64
    var isUnsigned: Bool

    init(signed value: Int64) {
        bits = UInt64(bitPattern: value)
        isUnsigned = false
    }

    init(unsigned value: UInt64) {
        bits = value
        isUnsigned = value > UInt64(Int64.max)
    }
}
