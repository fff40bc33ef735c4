import Foundation
import TestSupport
import XCTest

@testable import ArchiveCodec

/// NSDecimalNumber, NSCalendarDate and NSTimeZone in their readable forms
/// (`ValueObjectForms`, `ArchiveEncoder.fillValueForm`): Apple's archives and Foundation's
/// layouts read as the forms and back to the same archive; any other layout keeps its keys;
/// a form that is inconsistent is refused where it stands.
final class ValueObjectFormsTests: XCTestCase {
    private func json(_ bytes: [UInt8]) throws -> String {
        String(decoding: try KeyedArchive(parsing: bytes).json(view: .readable, pretty: false), as: UTF8.self)
    }

    private func encode(_ text: String) throws -> [UInt8] {
        try JSONDocument(parsing: Array(text.utf8)).archive(format: .binary)
    }

    private func raw(_ bytes: [UInt8]) throws -> String {
        String(decoding: try KeyedArchive(parsing: bytes).json(view: .raw, pretty: false), as: UTF8.self)
    }

    /// An NSDecimal's fields, as NSDecimalNumber's `encodeWithCoder:` archives them.
    struct Fields {
        var words: [UInt16]
        var exponent: Int
        var length: Int
        var negative: Bool
        var compact: Bool
    }

    /// The fields of Foundation's `value`, read from its 20 bytes: the exponent byte, the
    /// length and flags byte (laid out one way by swift-corelibs-foundation, another by
    /// Apple's bitfield: the one that gives the value back is taken), the mantissa's words.
    static func fields(of value: Decimal) throws -> Fields {
        let bytes = withUnsafeBytes(of: value) { Array($0) }
        guard bytes.count == 20 else { throw XCTSkip("Decimal is not laid out as NSDecimal here") }
        let words = (0..<8).map { UInt16(bytes[4 + 2 * $0]) | UInt16(bytes[5 + 2 * $0]) << 8 }
        let exponent = Int(Int8(bitPattern: bytes[0]))
        for fields in [
            Fields(words: words, exponent: exponent, length: Int(bytes[1] >> 4), negative: bytes[1] & 8 != 0, compact: bytes[1] & 4 != 0),
            Fields(words: words, exponent: exponent, length: Int(bytes[1] & 0xF), negative: bytes[1] & 0x10 != 0, compact: bytes[1] & 0x20 != 0)
        ] {
            let text = DecimalText(words: words, exponent: Int8(exponent), negative: fields.negative)
            guard text.length == fields.length else { continue }
            if value.isNaN ? text.isNaN : Decimal(string: text.text) == value { return fields }
        }
        throw XCTSkip("Decimal's layout is not one known here")
    }

    /// The keys Foundation's NSDecimalNumber archives for `fields` (`encodeWithCoder:`), as the
    /// readable view writes an instance's keys: the archive is built from them.
    private func decimalKeys(_ fields: Fields, className: String = "NSDecimalNumber", byteOrder: Int = 1, extra: String = "") -> String {
        let bytes = fields.words.flatMap { [UInt8(truncatingIfNeeded: $0), UInt8(truncatingIfNeeded: $0 >> 8)] }
        return #"{"$class":"\#(className)","NS.exponent":\#(fields.exponent),"NS.length":\#(fields.length),"NS.negative":\#(fields.negative),"#
            + #""NS.compact":\#(fields.compact),"NS.mantissa.bo":\#(byteOrder),"NS.mantissa":{"$bytes":"\#(Data(bytes).base64EncodedString())"}\#(extra)}"#
    }

    /// The GMT TZif data Apple archived (`scl-macOS1014_*`), as base64.
    private func appleGMT() throws -> String {
        let raw = try raw(Fixtures.bytes("scl-macOS1014_ISO8601DateFormatter-Default.archive"))
        return String(try XCTUnwrap(raw.firstMatch(of: /"NS.data":\{"\$data":"([^"]+)"/)).output.1)
    }

    private let gmtInfo = #""$zoneInfo":{"abbreviation":"GMT","offset":0,"isDST":false,"abbreviations":["GMT"],"rule":"GMT0"}"#

    // MARK: Time zones

    /// Apple's archives: each NSTimeZone reads as its name, what its data says and the data.
    func testApplesTimeZones() throws {
        for name in ["scl-macOS1014_ISO8601DateFormatter-Default.archive", "scl-macOS1014_DateIntervalFormatter-Default.archive"] {
            let bytes = try Fixtures.bytes(name)
            let text = try json(bytes)
            XCTAssertTrue(text.contains(#""$timeZone":"GMT","# + gmtInfo + #","$tzif":{"$class":"NSMutableData","$data":"VFppZjIA"#), text)
            XCTAssertFalse(text.contains("NS.name"), text)
            try assertReadableLossless(bytes, name)
            XCTAssertEqual(try roundTrip(roundTrip(bytes)), try roundTrip(bytes), name)
        }
    }

    /// swift-corelibs-foundation's NSKeyedArchiver writes the data as a plain data entry: the
    /// form holds `{"$data": …}`; the zone's real TZif file (transitions, a rule) is summed up.
    func testFoundationsTimeZone() throws {
        guard let zone = NSTimeZone(name: "America/Los_Angeles"), !zone.data.isEmpty else { throw XCTSkip("no zone data on this machine") }
        let bytes = Array(try NSKeyedArchiver.archivedData(withRootObject: zone, requiringSecureCoding: false))
        let text = try json(bytes)
        XCTAssertTrue(
            text.hasPrefix(
                #"{"$class":"NSTimeZone","$timeZone":"America/Los_Angeles","$zoneInfo":{"abbreviation":"PST","offset":-28800,"isDST":false,"abbreviations":["LMT","PDT","PST","PWT","PPT"],"rule":"#
            ), text)
        XCTAssertTrue(text.contains(#""PST8PDT,M3.2.0,M11.1.0"},"$tzif":{"$data":"VFppZ"#), text)
        try assertReadableLossless(bytes, "America/Los_Angeles")
    }

    /// Data that is not a TZif file, a zone with another key, a name inline: the keys stay.
    func testUnusualTimeZonesKeepTheirKeys() throws {
        let gmt = try appleGMT()
        let longer = (try XCTUnwrap(Data(base64Encoded: gmt)) + [0]).base64EncodedString()
        for (keys, why) in [
            (#""NS.name":"UTC","NS.data":{"$data":"AAEC"}"#, "not TZif"),
            (#""NS.name":"UTC","NS.data":{"$data":"\#(longer)"}"#, "a byte after the footer"),
            (#""NS.name":"UTC","NS.data":{"$data":"\#(gmt)"},"NS.extra":1"#, "another key"),
            (#""NS.name":{"$inline":"UTC"},"NS.data":{"$data":"\#(gmt)"}"#, "an inline name"),
            (#""NS.name":"UTC","NS.data":"text""#, "a string for data"),
            (#""NS.name":"UTC""#, "no data")
        ] {
            let bytes = try encode(#"{"$class":"NSTimeZone",\#(keys)}"#)
            let text = try json(bytes)
            XCTAssertTrue(text.contains("\"NS.name\""), "\(why): \(text)")
            XCTAssertFalse(text.contains("$zoneInfo"), "\(why): \(text)")
            try assertReadableLossless(bytes, why)
        }
    }

    /// One data object shared by two zones (and referred to from elsewhere) stays shared.
    func testSharedData() throws {
        let gmt = try appleGMT()
        let bytes = try encode(
            #"{"a":{"$class":"NSTimeZone","NS.name":"GMT","NS.data":{"$class":"NSMutableData","$id":1,"$data":"\#(gmt)"}},"#
                + #""b":{"$class":"NSTimeZone","NS.name":"GMT","NS.data":{"$ref":1}},"c":{"$ref":1}}"#)
        let text = try json(bytes)
        XCTAssertEqual(text.components(separatedBy: "$zoneInfo").count, 3, text)
        try assertReadableLossless(bytes, "shared data")
    }

    // MARK: Calendar dates

    func testCalendarDates() throws {
        let gmt = try appleGMT()
        let zone = #"{"$class":"NSTimeZone","NS.name":"GMT","NS.data":{"$class":"NSMutableData","$data":"\#(gmt)"}}"#
        let bytes = try encode(#"{"$class":"NSCalendarDate","NS.time":625000000.5,"NS.format":"%Y-%m-%d %H:%M:%S %z","NS.timezone":\#(zone)}"#)
        XCTAssertEqual(
            try json(bytes),
            #"{"$class":"NSCalendarDate","$date":"2020-10-21T19:06:40.500Z","$dateFormat":"%Y-%m-%d %H:%M:%S %z","$zone":{"$class":"NSTimeZone","#
                + #""$timeZone":"GMT","# + gmtInfo + #","$tzif":{"$class":"NSMutableData","$data":"\#(gmt)","$kind":{"name":"tzif"}}}}"#)
        try assertReadableLossless(bytes, "calendar date")
        // No format (nil), a zone shared by two dates, a time text cannot say exactly.
        let shared = try encode(
            #"[{"$class":"NSCalendarDate","NS.time":1e-10,"NS.format":null,"NS.timezone":{"$id":1,"$class":"NSTimeZone","NS.name":"GMT","NS.data":{"$data":"\#(gmt)"}}},"#
                + #"{"$class":"NSCalendarDate","NS.time":{"$real":"NaN"},"NS.format":null,"NS.timezone":{"$ref":1}}]"#)
        let text = try json(shared)
        XCTAssertTrue(text.contains(#"{"$class":"NSCalendarDate","$date":1e-10,"$dateFormat":null,"$zone":{"$class":"NSTimeZone","$id":1,"#), text)
        XCTAssertTrue(text.contains(#"{"$class":"NSCalendarDate","$date":{"$real":"NaN"},"$dateFormat":null,"$zone":{"$ref":1}}"#), text)
        try assertReadableLossless(shared, "shared zone")
    }

    func testUnusualCalendarDatesKeepTheirKeys() throws {
        for (keys, why) in [
            (#""NS.time":1,"NS.format":null,"NS.timezone":null"#, "an integer time"),
            (#""NS.time":1.0,"NS.format":{"$inline":"%Y"},"NS.timezone":null"#, "an inline format"),
            (#""NS.time":1.0,"NS.format":null"#, "no zone"),
            (#""NS.time":1.0,"NS.format":null,"NS.timezone":null,"x":2"#, "another key")
        ] {
            let bytes = try encode(#"{"$class":"NSCalendarDate",\#(keys)}"#)
            let text = try json(bytes)
            XCTAssertTrue(text.contains("\"NS.time\""), "\(why): \(text)")
            try assertReadableLossless(bytes, why)
        }
    }

    // MARK: Decimal numbers

    /// Foundation's decimals (swift-corelibs-foundation's `Decimal`, laid out as
    /// NSDecimalNumber's `encodeWithCoder:` archives it): zero, NaN, negative, the largest
    /// mantissa, an exponent.
    func testFoundationsDecimals() throws {
        for (value, text) in [
            (Decimal(string: "-123.45")!, "-123.45"), (Decimal.zero, "0"), (Decimal.nan, "NaN"), (Decimal(string: "1.5")!, "1.5"),
            (Decimal(string: "123456789012345678901234567890123456789")!, "123456789012345678901234567890123456789"),
            (Decimal(string: "12e5")!, "12E5"), (Decimal(string: "0.001")!, "0.001"), (Decimal(string: "-7")!, "-7"),
            (Decimal.greatestFiniteMagnitude, "340282366920938463463374607431768211455E127")
        ] {
            let fields = try Self.fields(of: value)
            let bytes = try encode(decimalKeys(fields))
            let compact = fields.compact ? "" : #","$compact":false"#
            XCTAssertEqual(try json(bytes), #"{"$class":"NSDecimalNumber","$decimal":"\#(text)"\#(compact)}"#, text)
            try assertReadableLossless(bytes, text)
            XCTAssertEqual(try roundTrip(roundTrip(bytes)), try roundTrip(bytes), text)
        }
        // The chain Apple writes goes without `$classes`; the placeholder class takes the form too.
        XCTAssertTrue(try raw(encode(#"{"$class":"NSDecimalNumber","$decimal":"1"}"#)).contains(#"["NSDecimalNumber","NSNumber","NSValue","NSObject"]"#))
        let placeholder = try encode(decimalKeys(Self.fields(of: Decimal(string: "2.5")!), className: "NSDecimalNumberPlaceholder"))
        XCTAssertTrue(try json(placeholder).contains(#""$class":"NSDecimalNumberPlaceholder","#))
        try assertReadableLossless(placeholder, "placeholder")
    }

    /// The encoder writes Foundation's keys: the six, of Foundation's types, inline.
    func testEncoderWritesFoundationsLayout() throws {
        let text = try raw(encode(#"{"$class":"NSDecimalNumber","$decimal":"-1.50","$compact":false}"#))
        for part in [
            #""NS.exponent":-2"#, #""NS.length":1"#, #""NS.negative":true"#, #""NS.compact":false"#, #""NS.mantissa.bo":1"#,
            #""NS.mantissa":{"$data":"lgAAAAAAAAAAAAAAAAAAAA=="}"#
        ] {
            XCTAssertTrue(text.contains(part), "\(part) in \(text)")
        }
    }

    /// A random decimal (words, exponent, sign, compact flag) reads as its form and back.
    func testRandomDecimals() throws {
        var random = SplitMix64(seed: 3)
        for round in 0..<200 {
            let length = Int(random.next() % 9)
            var words = [UInt16](repeating: 0, count: 8)
            for index in 0..<length { words[index] = UInt16(truncatingIfNeeded: random.next()) | (index == length - 1 ? 1 : 0) }
            let negative = length > 0 && random.next() & 1 == 0
            let fields = Fields(words: words, exponent: Int(Int8(truncatingIfNeeded: random.next())), length: length, negative: negative, compact: random.next() & 1 == 0)
            let bytes = try encode(decimalKeys(fields))
            XCTAssertTrue(try json(bytes).contains("$decimal"), "round \(round)")
            try assertReadableLossless(bytes, "round \(round)")
        }
    }

    /// Layouts the form cannot write back keep their keys.
    func testUnusualDecimalsKeepTheirKeys() throws {
        func layout(exponent: String = "-2", negative: String = "true", mantissa: String = #"{"$bytes":"OTAAAAAAAAAAAAAAAAAAAA=="}"#) -> String {
            #"{"$class":"NSDecimalNumber","NS.exponent":\#(exponent),"NS.length":1,"NS.negative":\#(negative),"NS.compact":true,"#
                + #""NS.mantissa.bo":1,"NS.mantissa":\#(mantissa)}"#
        }
        let value = Fields(words: [12345, 0, 0, 0, 0, 0, 0, 0], exponent: -2, length: 1, negative: true, compact: true)
        var trailing = value
        trailing.words[5] = 1
        var long = value
        long.length = 2
        let nanExponent = Fields(words: [UInt16](repeating: 0, count: 8), exponent: 3, length: 0, negative: true, compact: false)
        for (keys, why) in [
            (decimalKeys(value, byteOrder: 0), "big-endian words"),
            (decimalKeys(trailing), "a word past the length"),
            (decimalKeys(long), "a length past the last word"),
            (decimalKeys(nanExponent), "NaN with an exponent"),
            (decimalKeys(value, extra: #","NS.other":1"#), "another key"),
            (layout(mantissa: #"{"$bytes":"OTA="}"#), "two bytes of mantissa"),
            (layout(exponent: "-2.0"), "a real exponent"),
            (layout(exponent: "200"), "an exponent past a byte"),
            (layout(negative: "1"), "an integer flag"),
            (layout(mantissa: #"{"$data":"OTAAAAAAAAAAAAAAAAAAAA=="}"#), "referenced mantissa")
        ] {
            let bytes = try encode(keys)
            let text = try json(bytes)
            XCTAssertTrue(text.contains("\"NS.mantissa\""), "\(why): \(text)")
            XCTAssertFalse(text.contains("$decimal"), "\(why): \(text)")
            try assertReadableLossless(bytes, why)
        }
    }

    // MARK: Refusals

    /// A form that does not say what it holds is refused at the member that is wrong.
    func testInconsistentFormsRefused() throws {
        let gmt = try appleGMT()
        let zone = { (info: String) in #"{"x":{"$class":"NSTimeZone","$timeZone":"GMT","$tzif":{"$data":"\#(gmt)"},"$zoneInfo":\#(info)}}"# }
        let cases: [(String, String)] = [
            (#"{"x":{"$class":"NSDecimalNumber","$decimal":"12.3.4"}}"#, "$.x.$decimal"),
            (#"{"x":{"$class":"NSDecimalNumber","$decimal":12.5}}"#, "$.x.$decimal"),
            (#"{"x":{"$class":"NSDecimalNumber","$decimal":"-0"}}"#, "$.x.$decimal"),
            (#"{"x":{"$class":"NSDecimalNumber","$decimal":"1E200"}}"#, "$.x.$decimal"),
            (#"{"x":{"$class":"NSDecimalNumber","$decimal":"1","$compact":0}}"#, "$.x.$compact"),
            (#"{"x":{"$class":"NSDecimalNumber","$compact":false}}"#, "$.x"),
            (#"{"x":{"$class":"NSDecimalNumber","$decimal":"1","n":2}}"#, "$.x"),
            (#"{"x":{"$class":"NSDecimalNumber","$decimal":"1","$zone":null}}"#, "$.x.$zone"),
            (#"{"x":{"$class":"NSCalendarDate","$date":"2001-01-01T00:00:00Z","$dateFormat":null}}"#, "$.x"),
            (#"{"x":{"$class":"NSCalendarDate","$dateFormat":null,"$zone":null}}"#, "$.x"),
            (#"{"x":{"$class":"NSCalendarDate","$date":"yesterday","$dateFormat":null,"$zone":null}}"#, "$.x.$date"),
            (zone(#"{"abbreviation":"GMT","offset":3600,"isDST":false,"abbreviations":["GMT"],"rule":"GMT0"}"#), "$.x.$zoneInfo.offset"),
            (zone(#"{"abbreviation":"UTC","offset":0,"isDST":false,"abbreviations":["GMT"],"rule":"GMT0"}"#), "$.x.$zoneInfo.abbreviation"),
            (zone(#"{"abbreviation":"GMT","offset":0,"isDST":false,"abbreviations":["GMT","UTC"],"rule":"GMT0"}"#), "$.x.$zoneInfo.abbreviations"),
            (zone(#"{"abbreviation":"GMT","offset":0,"isDST":true,"abbreviations":["GMT"],"rule":"GMT0"}"#), "$.x.$zoneInfo.isDST"),
            (zone(#"{"abbreviation":"GMT","offset":0,"isDST":false,"abbreviations":["GMT"]}"#), "$.x.$zoneInfo"),
            (zone(#"{"abbreviation":"GMT","offset":0,"isDST":false,"abbreviations":["GMT"],"rule":"GMT0","x":1}"#), "$.x.$zoneInfo.x"),
            (zone(#""GMT""#), "$.x.$zoneInfo"),
            (#"{"x":{"$class":"NSTimeZone","$timeZone":"GMT","$tzif":{"$data":"AAEC"},"$zoneInfo":{}}}"#, "$.x.$tzif.$data"),
            (#"{"x":{"$class":"NSTimeZone","$timeZone":"GMT","$tzif":"text","$zoneInfo":{}}}"#, "$.x.$tzif"),
            (#"{"x":{"$class":"NSTimeZone","$timeZone":"GMT","$tzif":{"$data":"\#(gmt)"}}}"#, "$.x")
        ]
        for (json, path) in cases {
            XCTAssertThrowsError(try encode(json), json) { error in
                XCTAssertEqual((error as? CodecError)?.kind, .invalidDocument, json)
                XCTAssertEqual((error as? CodecError)?.jsonPath, path, "\(json): \(error)")
            }
        }
        // A `$tzif` that is a reference is checked against the data it names.
        XCTAssertNoThrow(
            try encode(#"{"d":{"$id":1,"$data":"\#(gmt)"},"x":{"$class":"NSTimeZone","$timeZone":"GMT","$tzif":{"$ref":1},\#(gmtInfo)}}"#))
        XCTAssertThrowsError(
            try encode(#"{"d":{"$id":1,"$data":"AAEC"},"x":{"$class":"NSTimeZone","$timeZone":"GMT","$tzif":{"$ref":1},\#(gmtInfo)}}"#))
    }

    // MARK: The other views and tools

    func testPlainView() throws {
        let gmt = try appleGMT()
        let lossless =
            #"[{"$class":"NSDecimalNumber","$decimal":"-123.45"},{"$class":"NSDecimalNumber","$decimal":"NaN","$compact":false},"#
            + #"{"$class":"NSCalendarDate","$date":"2001-01-01T00:00:00Z","$dateFormat":"%Y","$zone":{"$class":"NSTimeZone","$timeZone":"GMT","$tzif":{"$data":"\#(gmt)"},\#(gmtInfo)}}]"#
        let plain = String(decoding: try PlainView.json(JSONDocument(parsing: Array(lossless.utf8)), pretty: false), as: UTF8.self)
        XCTAssertEqual(
            plain,
            #"[-123.45,"NaN",{"$class":"NSCalendarDate","date":"2001-01-01T00:00:00Z","dateFormat":"%Y","zone":{"$class":"NSTimeZone","timeZone":"GMT","tzif":"\#(gmt)","#
                + #""zoneInfo":{"abbreviation":"GMT","offset":0,"isDST":false,"abbreviations":["GMT"],"rule":"GMT0"}}}]"#)
    }

    /// `compare` names a difference inside a form by the form's member, a decimal by its text.
    func testDifferencesNamed() throws {
        func difference(_ a: String, _ b: String) throws -> String? {
            try Archive(parsing: encode(a)).difference(from: Archive(parsing: encode(b)))
        }
        XCTAssertEqual(
            try difference(#"{"n":{"$class":"NSDecimalNumber","$decimal":"-123.45"}}"#, #"{"n":{"$class":"NSDecimalNumber","$decimal":"-123.46"}}"#),
            #".n.$decimal: "-123.45" ≠ "-123.46""#)
        XCTAssertEqual(
            try difference(#"{"n":{"$class":"NSDecimalNumber","$decimal":"1.5"}}"#, #"{"n":{"$class":"NSDecimalNumber","$decimal":"1.50"}}"#),
            #".n.$decimal: "1.5" ≠ "1.50""#)
        let gmt = try appleGMT()
        let date = { (format: String) in
            #"{"d":{"$class":"NSCalendarDate","$date":"2001-01-01T00:00:00Z","$dateFormat":"\#(format)","$zone":{"$class":"NSTimeZone","$timeZone":"GMT","$tzif":{"$data":"\#(gmt)"},\#(self.gmtInfo)}}}"#
        }
        XCTAssertEqual(try difference(date("%Y"), date("%y")), #".d.$dateFormat: "%Y" ≠ "%y""#)
        XCTAssertNil(try difference(date("%Y"), date("%Y")))
    }

    /// Keypaths (`archive-tool get`) reach the forms' members, through a `$ref` too.
    func testKeypaths() throws {
        let document = try JSONDocument(parsing: Array(try json(Fixtures.bytes("scl-macOS1014_DateIntervalFormatter-Default.archive")).utf8))
        func value(_ path: String) throws -> String { String(decoding: try document.valueText(at: ReadablePath(parsing: path)), as: UTF8.self) }
        XCTAssertEqual(try value(#".["NS.timeZone"].$zoneInfo.offset"#), "0")
        XCTAssertEqual(try value(#".["NS.timeZone"].$zoneInfo.abbreviations[0]"#), #""GMT""#)
        XCTAssertEqual(try value(#".["NS.calendar"]["NS.timezone"].$timeZone"#), #""GMT""#)
    }

    /// The summary names the largest data where the readable view writes it.
    func testSummaryPaths() throws {
        let summary = try Archive(parsing: Fixtures.bytes("scl-macOS1014_ISO8601DateFormatter-Default.archive")).summary()
        XCTAssertEqual(summary.largestData.first?.path, #".["NS.timeZone"].$tzif.$data"#)
    }
}
