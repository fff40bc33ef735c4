import ArchiveCodec

/// How much of the `MemoryBudget` a request reserves when it is admitted, from its route and
/// body size, before a byte of the body is read. A conversion holds its body twice for a moment
/// (libevent's buffer, then the worker's copy) and then the parsed archive or document; the
/// reply it writes is reserved as it grows (`ReplyBuffer`).
///
/// The factors are fitted to the service's measured peaks on real and generated archives;
/// the figures and the commands are in docs/benchmarks.md, "Memory of the service".
enum ConversionCost {
    /// Bytes reserved per body byte while a decode's body is received and parsed.
    static let decodePerBodyByte = 4
    /// Bytes reserved per body byte while an encode's body is received and parsed.
    static let encodePerBodyByte = 6

    /// Bytes a decode holds per `$objects` entry (the analysis's tables and the writers'
    /// placement) and per property list object (validation's bitmaps and walk state): fitted
    /// to peaks measured on archives of a million to four million small entries (scalars,
    /// strings, instances, a cycle, and entries that all share one object), where the body's
    /// size says nothing of it (docs/benchmarks.md,
    /// "What one decode holds against what the budget reserved").
    static let decodePerEntry = 64
    static let decodePerObject = 16

    /// What a decode needs in all, known once its body is here: the larger of the per-byte
    /// estimate and the body plus its tables as `counts` counts them. The reply is reserved
    /// as it is written.
    static func decodeWorking(bodyBytes: Int, counts: ArchiveCounts) -> Int {
        max(
            bodyBytes * decodePerBodyByte,
            bodyBytes + counts.entries * decodePerEntry + counts.objects * decodePerObject)
    }

    /// What a decode asked to salvage (`?salvage=1`) needs in all: a decode's working memory
    /// twice (a damaged file is read again as a repaired copy, which holds the input's bytes and
    /// an offset table of its own, after the strict read refused it) and the most its marks can
    /// hold (`SalvageLimit`: a bounded count of marks, each measured). Reserved for every such
    /// request, whole or not: whether a file is damaged is known only once it has been read.
    static func salvageWorking(bodyBytes: Int, counts: ArchiveCounts) -> Int {
        2 * decodeWorking(bodyBytes: bodyBytes, counts: counts) + SalvageLimit.marks * SalvageLimit.bytesPerMark
    }

    /// What an encode of `document` needs in all, known once the body is parsed: the body and
    /// the working memory its format holds per value (`JSONDocument.encodingWorkingBytes`),
    /// and nothing yet for the reply (reserved as it is written).
    static func encodeWorking(bodyBytes: Int, document: JSONDocument) -> Int {
        bodyBytes + document.encodingWorkingBytes
    }

    /// Bytes to reserve for a request of `bodyBytes` on `route` (nil: no route; the body is
    /// buffered and dropped).
    static func admission(route: Route?, bodyBytes: Int) -> Int {
        switch route {
        case .decode?: bodyBytes * decodePerBodyByte
        case .encode?: bodyBytes * encodePerBodyByte
        default: bodyBytes
        }
    }
}
