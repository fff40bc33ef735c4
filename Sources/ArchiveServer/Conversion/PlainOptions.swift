import ArchiveCodec

/// What a plain-view request (`/v1/decode?view=plain`) asks for.
struct PlainOptions: Sendable {
    /// `?pretty=1`: the plain JSON indented.
    var pretty: Bool
    /// `?nested=1`: data values holding a document written as that document's plain view.
    var nested: Bool
    /// `?path=.teams[1]`: only the plain view of the value there is answered, whole in itself
    /// (`JSONDocument.writePlainValue`).
    var path: ReadablePath?
}
