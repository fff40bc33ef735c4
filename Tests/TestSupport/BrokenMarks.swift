import Foundation

/// One `$broken` mark of a salvaged document's JSON (docs/mapping.md, "Salvage").
public struct BrokenMark: Hashable {
    /// The mark's `offset`; `Int.min` when it has none that is an integer (no place has).
    public let offset: Int
    public let reason: String
    /// The bytes of `rest`'s `$data`.
    public let rest: Data
}

/// The marks a salvaged document's JSON holds, wherever they stand, for the salvage tests of
/// every format.
public enum BrokenMarks {
    /// Every mark in `json`, a mark's own members not looked into; throws when `json` is not
    /// JSON.
    public static func find(in json: [UInt8]) throws -> [BrokenMark] {
        var marks: [BrokenMark] = []
        func walk(_ value: Any) {
            if let object = value as? [String: Any] {
                if let mark = object["$broken"] as? [String: Any] {
                    let rest = (mark["rest"] as? [String: Any])?["$data"] as? String ?? ""
                    marks.append(
                        BrokenMark(offset: mark["offset"] as? Int ?? .min, reason: mark["reason"] as? String ?? "", rest: Data(base64Encoded: rest) ?? Data()))
                    return
                }
                object.values.forEach(walk)
            } else if let array = value as? [Any] {
                array.forEach(walk)
            }
        }
        walk(try JSONSerialization.jsonObject(with: Data(json), options: [.fragmentsAllowed]))
        return marks
    }
}
