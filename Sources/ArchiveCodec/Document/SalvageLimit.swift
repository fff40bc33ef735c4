/// How much a salvage marks (docs/mapping.md, "Salvage"). A mark holds its reason's text, the
/// place's bytes and, in a repaired copy, objects of its own: each costs hundreds of bytes, and
/// a damaged reference can be three bytes of input, so an input that is damage throughout
/// (every reference of a megabyte array past the object count) would hold hundreds of times
/// its size in marks. Salvage is for a file damaged here and there: past `marks` places it
/// stops collecting and refuses the file (`limit-exceeded`), so what it holds for marks is
/// bounded by this count, whatever the input, and a service reserves it before it reads.
public enum SalvageLimit {
    /// The most places a salvaged document marks.
    public static let marks = 10_000

    /// What one mark holds at most while a salvage reads, its share of the repaired copy
    /// included. Measured as the peak resident memory of `archive-tool decode --salvage` (a
    /// release build) at 10,000 marks less that at one, over 10,000: 740 bytes for a binary
    /// plist's references past its object count (an array of a million references), 680 for a
    /// keyed archive's UIDs past `$objects` (an NSArray of 200,000).
    public static let bytesPerMark = 1024

    /// The refusal of a file with more damaged places than salvage marks.
    static var tooMany: CodecError {
        CodecError(
            .limitExceeded,
            "more than \(marks) places could not be read: salvage reads a file damaged here and there, and this one is damaged throughout",
            limit: marks)
    }
}
