/// What a summary request (`/v1/decode?view=summary`) asks for.
struct SummaryOptions: Sendable {
    /// `?pretty=1`: the summary's JSON indented.
    var pretty: Bool
    /// `?nested=1`: the documents inside data values summed up too, their counts added to the
    /// document's (`Archive.summary(nested:)`).
    var nested: Bool
}
