/// One inline container being built by `ArchiveEncoder.encodeInlineContainers`.
struct InlineContainerFrame {
    var isArray: Bool
    var children: [JSONDocument.Value]
    var keys: [UInt32]
    var values: [UInt32] = []
}
