/// What a document's growing tables reserve before it is read: room for a small document's
/// (a nested payload's, a service request's) at once. A table grown from empty is allocated
/// and copied at 1, 2, 4, 8… entries, and each allocation costs about as much as reading a
/// few of a small document's values; a larger document's tables grow on from here, in
/// proportion to what it holds. Capacities only: nothing read or written depends on them.
///
/// The one home of these sizes; each is the smaller of its figure and what the input can
/// hold (a table is never reserved past the input's own bound).
enum SmallDocument {
    /// Entries of a table of things a document defines (a typedstream's objects, classes,
    /// shared strings and type nodes): records of 8–24 bytes, so that 16 of them stay
    /// within the allocator's smallest, fastest sizes.
    static let things = 16
    /// Entries of a table of values (a plist's scalars, an XML plist's nodes and children):
    /// records of 4–8 bytes.
    static let values = 64
    /// Levels of a nesting stack (a walk's open runs, a payload's open containers).
    static let nesting = 16
    /// Bytes of a text table (an XML plist's strings).
    static let textBytes = 1_024
}
