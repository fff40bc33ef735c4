/// Text collected from a writer's pieces (its `JSONOutput` sink), its growth asked of `hold`
/// with what the caller holds beside it (`held`), before the array grows (doubling, as it
/// does); once refused, it holds nothing more and says so (`refused`). Where an answer made
/// from decoded text keeps that text (`Archive.decodedDocument`, `KeyedValueAtPath`).
final class HeldText {
    private(set) var bytes: [UInt8] = []
    private(set) var refused = false
    private let hold: ((Int) -> Bool)?
    private let held: Int

    init(hold: ((Int) -> Bool)?, held: Int = 0) {
        self.hold = hold
        self.held = held
    }

    func append(_ piece: UnsafeBufferPointer<UInt8>) {
        guard !refused else { return }
        if let hold, bytes.count + piece.count > bytes.capacity, !hold(held + max(bytes.capacity * 2, bytes.count + piece.count)) {
            refused = true
            bytes = []
            return
        }
        bytes.append(contentsOf: piece)
    }

    /// The text, leaving none here.
    func take() -> [UInt8] {
        defer { bytes = [] }
        return bytes
    }
}
