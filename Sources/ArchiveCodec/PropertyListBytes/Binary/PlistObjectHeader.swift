/// Where one object's payload lives: `start` is the byte offset after the marker (and count),
/// `count` the number of elements (characters, UTF-16 units, bytes, entries or refs).
struct PlistObjectHeader {
    var kind: PlistKind
    var marker: UInt8
    var start: Int
    var count: Int
}
