import ArchiveCodec

/// What a decode request asks for.
struct DecodeOptions: Sendable {
    var view: ArchiveView
    var pretty: Bool
    /// `?maxDepth=N`: the JSON never nests deeper (see `KeyedArchive.plan`).
    var maxDepth: Int?
    /// `?exactIntegers=1`: integers beyond ±(2^53 − 1) as `{"$integer": "…"}`.
    var exactIntegers = false
    /// `?exactNumbers=1`: also every real without a fraction as `{"$real": "1.0"}`
    /// (`NumberWrapping.all`), so that jq, node and Python give the document back unchanged.
    var exactNumbers = false
    /// The numbers the readable view wraps.
    var numbers: NumberWrapping { NumberWrapping(exactIntegers: exactIntegers, exactNumbers: exactNumbers) }
    /// `?nested=1`: data values holding an archive, a property list or a typedstream written
    /// decoded, in place (see `NestedExpansion`).
    var nested = false
    /// `?path=.teams[1].name`: only the value there is answered (see `JSONDocument.value(at:)`).
    var path: ReadablePath?
    /// `?salvage=1`: a damaged typedstream read as far as it goes, what could not be read
    /// marked `$broken` (`Archive.init(parsing:…salvaging:)`), the reply saying so in
    /// `Archive-Salvaged`.
    var salvage = false

    init(view: ArchiveView, pretty: Bool) {
        self.view = view
        self.pretty = pretty
    }
}
