@testable import ArchiveCodec

/// A typedstream's JSON as the service writes it, and JSON back to bytes, for the typedstream
/// mapping's tests.
enum TypedStreamJSONRoundTrip {
    /// The readable view of `bytes`, compact or indented.
    static func json(_ bytes: [UInt8], pretty: Bool = false) throws -> [UInt8] {
        let archive = try Archive(parsing: bytes)
        let plan = try archive.plan(view: .readable, pretty: pretty)
        var text: [UInt8] = []
        try archive.writeJSON(view: .readable, pretty: pretty, plan: plan, parallelism: .serial) { text += $0 }
        return text
    }

    /// The bytes `text` encodes to.
    static func encode(_ text: [UInt8]) throws -> [UInt8] { try JSONDocument(parsing: text).archive(format: .binary) }

    /// The JSON text of `bytes`' readable view, as a string.
    static func text(_ bytes: [UInt8]) throws -> String { String(decoding: try json(bytes), as: UTF8.self) }
}
