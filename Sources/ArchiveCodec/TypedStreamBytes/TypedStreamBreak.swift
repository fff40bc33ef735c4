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
    ///
    /// A class: the model holds one reference, nil for every stream read whole, so that a
    /// stream's copies (a walk's, a layout's per object) and its readers' checks cost a pointer,
    /// not the break's fields.
    final class Break: Sendable {
        /// The byte offset in the input where reading failed, and the refusal's words there.
        let offset: Int
        let reason: String
        /// The bytes from `offset` to the end of the input, kept beside the mark.
        let rest: Span
        /// Where the mark stands in the JSON.
        let place: Place
        /// The slots left unread after the break in the groups and composites it closed: the
        /// JSON leaves them out (a group's array is shorter than its type string).
        let absentValues: Set<UInt32>
        /// The objects the break ended before their end-of-object mark.
        let openObjects: Set<UInt32>

        init(offset: Int, reason: String, rest: Span, place: Place, absentValues: Set<UInt32>, openObjects: Set<UInt32>) {
            self.offset = offset
            self.reason = reason
            self.rest = rest
            self.place = place
            self.absentValues = absentValues
            self.openObjects = openObjects
        }

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
