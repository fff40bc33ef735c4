extension TypedStream {
    /// Where a stream read with salvage (`TypedStreamReader.read(_:salvaging:)`) stopped being
    /// readable, and what the reader did to close what was open there.
    ///
    /// A typedstream is positional: nothing after a bad byte can be placed again (every value's
    /// meaning comes from the bytes before it), so a stream has at most one break and reading
    /// ends at it. The model stays one every walk can take: the slot where the break happened
    /// and the slots of every open group and composite after it hold nil values of their types
    /// (`absentValues`), and every object open at the break is ended there (`openObjects`,
    /// written in the generic form only: a readable form would pass off the part read as the
    /// whole). A model with a break is only written as JSON, never as a stream.
    struct Break: Sendable {
        /// The byte offset in the input where reading failed, and the refusal's words there.
        var offset: Int
        var reason: String
        /// The bytes from `offset` to the end of the input, kept beside the mark.
        var rest: Span
        /// Where the mark stands in the JSON.
        var place: Place
        /// The slots left unread after the break in the groups and composites it closed: the
        /// JSON leaves them out (a group's array is shorter than its type string).
        var absentValues: Set<UInt32> = []
        /// The objects the break ended before their end-of-object mark.
        var openObjects: Set<UInt32> = []

        enum Place: Equatable, Sendable {
            /// The value slot the break happened at.
            case value(UInt32)
            /// Among an object's groups, after those read: a group's type string or the
            /// object's end could not be read.
            case endOfObject(UInt32)
            /// Among the stream's top-level groups, after those read.
            case endOfStream
        }
    }
}
