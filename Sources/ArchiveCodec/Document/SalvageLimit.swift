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
    /// included; measured at 640 bytes (a binary plist's reference past its object count: the
    /// refusal, the mark, the repaired copy's object and table entry) and 444 bytes (a keyed
    /// archive's UID past `$objects`: the mark, its placeholder string and UID, the repaired
    /// copy's read).
    public static let bytesPerMark = 1024

    /// The refusal of a file with more damaged places than salvage marks.
    static var tooMany: CodecError {
        CodecError(
            .limitExceeded,
            "more than \(marks) places could not be read: salvage reads a file damaged here and there, and this one is damaged throughout",
            limit: marks)
    }
}
