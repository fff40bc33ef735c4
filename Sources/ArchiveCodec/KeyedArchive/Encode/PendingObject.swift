/// An object waiting in `ArchiveEncoder.pending`: its value, its UID, and when its shape is
/// one of the common ones, what filling it needs, so its `$` keys are not read twice.
struct PendingObject {
    enum Shape: UInt8 {
        /// A JSON array (an NSArray).
        case array
        /// A JSON object without `$` keys but `$id` (an NSDictionary).
        case plainDictionary
        /// `$class` (and perhaps `$id`) with data keys: the usual chain, no hints.
        case instance
        /// Anything else: the meta is read again.
        case other
    }

    let value: JSONDocument.Value
    let uid: UInt32
    let shape: Shape
    /// The `$class` value of an `instance`.
    let className: JSONDocument.Value?

    init(value: JSONDocument.Value, uid: Int, shape: Shape) {
        self.value = value
        self.uid = UInt32(truncatingIfNeeded: uid)
        self.shape = shape
        className = nil
    }

    init(value: JSONDocument.Value, uid: Int, meta: ObjectMeta) {
        self.value = value
        self.uid = UInt32(truncatingIfNeeded: uid)
        className = meta.className
        if meta.wrapper != nil || meta.hasValueForm || meta.chainGiven || meta.hints != nil {
            shape = .other
        } else {
            shape = meta.className == nil ? .plainDictionary : .instance
        }
    }
}
