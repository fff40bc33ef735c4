@testable import ArchiveCodec

/// The classes and C strings of a stream built by hand, each made once and referred to after,
/// as Apple's writer shares them (the JSON encoder shares them the same way, so a stream built
/// otherwise would not come back byte for byte in either form).
struct TypedStreamSharedDefinitions {
    private var classes: [String: Int] = [:]
    private var cStrings: [String: Int] = [:]

    /// The class of chain `links` (the class first), defined where new.
    mutating func of(_ builder: inout TypedStreamBuilder, _ links: [(String, Int64)]) throws -> Int {
        var superclass: Int?
        for (name, version) in links.reversed() {
            let key = "\(name)/\(version)/\(superclass ?? -1)"
            if let known = classes[key] {
                superclass = known
            } else {
                superclass = try builder.defineClass(name, version: version, superclass: superclass)
                classes[key] = superclass
            }
        }
        return superclass!
    }

    /// The class of `readable`'s chain.
    mutating func of(_ builder: inout TypedStreamBuilder, _ readable: ReadableClass) throws -> Int {
        try of(&builder, readable.chain.map { ($0.name, $0.version) })
    }

    /// A `*` value of `text`: new the first time, a reference after.
    mutating func cString(_ builder: inout TypedStreamBuilder, _ text: String) throws {
        if let known = cStrings[text] { return try builder.cString(reference: known) }
        cStrings[text] = try builder.cString(Array(text.utf8))
    }
}
