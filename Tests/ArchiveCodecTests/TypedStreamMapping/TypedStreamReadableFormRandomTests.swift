import TestSupport
import XCTest

@testable import ArchiveCodec

/// Random streams of the readable forms' classes, nested, shared, cyclic and mixed with objects
/// just short of a form (another version, a count that disagrees, a value spelled otherwise),
/// each of which must come back byte for byte through its JSON with the nesting measured right.
final class TypedStreamReadableFormRandomTests: XCTestCase {
    /// Makes one random stream.
    private struct Maker {
        var random: SplitMix64
        var builder = TypedStreamBuilder(byteOrder: .little)
        var definitions = TypedStreamSharedDefinitions()
        var objects: [Int] = []

        mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &random) < percent }
        mutating func below(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &random) }

        mutating func chain(_ links: [(String, Int64)]) throws -> Int { try definitions.of(&builder, links) }

        /// The chain of `readable`, now and then at another version (a near miss).
        mutating func chain(_ readable: ReadableClass) throws -> Int {
            var links = readable.chain.map { ($0.name, $0.version) }
            if chance(5) { links[0].1 += 1 }
            return try chain(links)
        }

        mutating func group(_ types: String, _ values: (inout Maker) throws -> Void) throws {
            try builder.beginGroup(types)
            try values(&self)
            try builder.end()
        }

        mutating func cString(_ text: String) throws { try definitions.cString(&builder, text) }

        mutating func text() -> [UInt8] {
            let pieces = ["a", "$", "é", "𝖍", "\"", "\n", "key", "$$x", "\u{0}", "￼"]
            var bytes = (0..<below(4)).flatMap { _ in Array(pieces[below(pieces.count)].utf8) }
            if chance(3) { bytes.append(0xFF) }
            return bytes
        }

        mutating func integer(_ code: Character) throws {
            switch code {
            case "c": try builder.integer(Int64(below(3)) - (chance(10) ? 100 : 0))
            case "i": try builder.integer(Int64(Int32.random(in: .min ... .max, using: &random)), form: chance(10) ? .int32 : .canonical)
            case "q": try builder.integer(Int64.random(in: .min ... .max, using: &random) >> UInt64(below(64)))
            case "Q": try builder.unsigned(UInt64.random(in: 0 ... .max, using: &random))
            case "B", "C": try builder.unsigned(UInt64(below(2)))
            case "f": try builder.float([0, 0.5, -1, .infinity, 1e-3, 7][below(6)], form: chance(10) ? .real : .canonical)
            default: try builder.double([0, 0.1358, -0.0, .nan, 1e300, 12][below(6)], form: chance(10) ? .real : .canonical)
            }
        }

        /// An `@` value: nil, a reference to an object made before (maybe still open: a
        /// cycle), or a new object of a random class.
        mutating func value(depth: Int) throws {
            if chance(8) { return try builder.object(nil) }
            if !objects.isEmpty, chance(15) { return try builder.object(objects[below(objects.count)]) }
            let leaf = depth >= 4
            let kinds = leaf ? 7 : 14
            let index: Int
            switch below(kinds) {
            case 0, 1:
                let readable: ReadableClass = chance(70) ? .string : .mutableString
                index = try builder.beginObject(class: try chain(readable))
                objects.append(index)
                let bytes = text()
                try group("+") { try $0.builder.byteString(bytes) }
            case 2:
                index = try builder.beginObject(class: try chain(.number))
                objects.append(index)
                let code = Array("cCiqQBfd")[below(8)]
                try group("*") { try $0.cString(String(code)) }
                try group(String(code)) { try $0.integer(code) }
            case 3:
                index = try builder.beginObject(class: try chain(chance(50) ? .data : .mutableData))
                objects.append(index)
                let bytes = text()
                try group("i") { try $0.builder.integer(Int64(bytes.count) + ($0.chance(5) ? 1 : 0)) }
                try group("[\(bytes.count)c]") { try $0.builder.byteArray(bytes) }
            case 4:
                index = try builder.beginObject(class: try chain(.date))
                objects.append(index)
                try group("d") { try $0.integer("d") }
            case 5:
                index = try builder.beginObject(class: try chain(.color))
                objects.append(index)
                let space = below(7) + 1
                try group("c") { try $0.builder.integer(Int64(space)) }
                let count = [4, 4, 2, 2, 5, 0, 3][space - 1]
                if count > 0 {
                    try group(String(repeating: "f", count: count)) { maker in
                        for _ in 0..<count { try maker.integer("f") }
                    }
                }
            case 6:
                let version: Int64 = chance(50) ? 21 : 30
                index = try builder.beginObject(class: try chain([("NSFont", version), ("NSObject", 0)]))
                objects.append(index)
                var list = ReadableFont.nameList(String(decoding: text(), as: UTF8.self), version: chance(90) ? version : 51 - version)
                if chance(5) { list[0] = 5 }
                try group("i") { try $0.builder.integer(Int64(list.count)) }
                try group("[\(list.count)c]") { try $0.builder.byteArray(list) }
                try group("f") { try $0.integer("f") }
                for _ in 0..<ReadableFont.flagCount { try group("c") { try $0.integer("c") } }
            case 7, 8:
                let readable = [ReadableClass.array, .mutableArray, .set, .mutableSet][below(4)]
                index = try builder.beginObject(class: try chain(readable))
                objects.append(index)
                let count = below(4)
                let isSet = readable == .set || readable == .mutableSet
                try group(isSet ? "I" : "i") { maker in
                    let said = Int64(count + (maker.chance(5) ? 1 : 0))
                    // Now and then spelled otherwise than Apple's writer spells it.
                    let form: NumberForm = maker.chance(10) ? .int16 : .canonical
                    try isSet ? maker.builder.unsigned(UInt64(said), form: form) : maker.builder.integer(said, form: form)
                }
                for _ in 0..<count { try group("@") { try $0.value(depth: depth + 1) } }
            case 9, 10:
                index = try builder.beginObject(class: try chain(chance(50) ? .dictionary : .mutableDictionary))
                objects.append(index)
                let count = below(4)
                try group("i") { try $0.builder.integer(Int64(count)) }
                for _ in 0..<(2 * count) { try group("@") { try $0.value(depth: depth + 1) } }
            case 11:
                index = try builder.beginObject(class: try chain(chance(50) ? .attributedString : .mutableAttributedString))
                objects.append(index)
                try group("@") { try $0.value(depth: depth + 1) }
                var introduced: Int64 = 0
                for _ in 0..<below(4) {
                    let number = introduced == 0 || chance(60) ? introduced + 1 : Int64(below(Int(introduced))) + 1 + (chance(5) ? 5 : 0)
                    try group("iI") { maker in
                        try maker.builder.integer(number)
                        try maker.builder.unsigned(UInt64(maker.below(100)))
                    }
                    if number == introduced + 1 || chance(5) {
                        introduced = max(introduced, number)
                        try group("@") { try $0.value(depth: depth + 1) }
                    }
                }
            case 12:
                index = try builder.beginObject(class: try chain(.url))
                objects.append(index)
                let hasBase = chance(40)
                try group("c") { try $0.builder.integer(hasBase ? 1 : 0) }
                if hasBase { try group("@") { try $0.value(depth: depth + 1) } }
                try group("@") { try $0.value(depth: depth + 1) }
            default:
                index = try builder.beginObject(class: try chain(chance(80) ? .value : .color))
                objects.append(index)
                if chance(50) {
                    try group("*") { try $0.cString("{CGSize=dd}") }
                    try group("{CGSize=dd}") { maker in
                        try maker.builder.beginComposite()
                        try maker.integer("d")
                        try maker.integer("d")
                        try maker.builder.end()
                    }
                } else {
                    try group("c") { try $0.builder.integer(6) }
                    try group("@@@") { maker in
                        for _ in 0..<3 { try maker.value(depth: depth + 1) }
                    }
                }
            }
            try builder.endObject()
        }
    }

    /// Each stream comes back byte for byte through its JSON, or, when it spells a number
    /// otherwise than Apple's writer, as a stream that reads as the same JSON.
    func testRandomStreamsComeBackByteForByte() throws {
        var forms = 0
        var respelled = 0
        for seed in 0..<1000 as Range<UInt64> {
            var maker = Maker(random: SplitMix64(seed: seed))
            try maker.group(maker.chance(50) ? "@" : "@@") { maker in
                for _ in 0..<maker.builder.slotsLeft { try maker.value(depth: 0) }
            }
            let stream = try maker.builder.finish()
            let bytes = try TypedStreamWriter.write(stream)
            let json = try TypedStreamJSONRoundTrip.json(bytes)
            let text = String(decoding: json, as: UTF8.self)
            let encoded = try TypedStreamJSONRoundTrip.encode(json)
            if stream.values.allSatisfy({ $0.form == .canonical }) {
                XCTAssertEqual(encoded, bytes, "seed \(seed): \(text)")
            } else {
                respelled += 1
            }
            XCTAssertEqual(try TypedStreamJSONRoundTrip.json(encoded), json, "seed \(seed): \(text)")
            XCTAssertEqual(try Archive(parsing: bytes).depth(of: .readable), try JSONDocument(parsing: json).depth, "seed \(seed): \(text)")
            XCTAssertGreaterThanOrEqual(try TypedStreamDocument(parsing: bytes).depthBound, try JSONDocument(parsing: json).depth, "seed \(seed): \(text)")
            if !text.contains("$classes") { forms += 1 }
        }
        // Most streams are readable through and through; the rest hold a near miss.
        XCTAssertGreaterThan(forms, 250)
        XCTAssertGreaterThan(respelled, 50)
    }
}
