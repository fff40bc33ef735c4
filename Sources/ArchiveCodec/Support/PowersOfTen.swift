/// 10^0 … 10^19, every power of ten a `UInt64` holds: a decimal's digit count
/// (`JSONOutput.appendDecimal`) and the divisor of a decimal's digits (`JSONNumber.exactDecimal`).
enum PowersOfTen {
    static let integers: [UInt64] = [
        1, 10, 100, 1_000, 10_000, 100_000, 1_000_000, 10_000_000, 100_000_000, 1_000_000_000, 10_000_000_000, 100_000_000_000,
        1_000_000_000_000, 10_000_000_000_000, 100_000_000_000_000, 1_000_000_000_000_000, 10_000_000_000_000_000,
        100_000_000_000_000_000, 1_000_000_000_000_000_000, 10_000_000_000_000_000_000
    ]
}
