/// ISO 8601 text for plist and NSDate times (seconds since 2001-01-01T00:00:00Z), written and
/// read without Foundation. `readable(_:)` only returns text that `parse` turns back into the
/// very same `Double`, which is what makes `{"$date": "…"}` lossless.
enum DateText {
    /// Seconds from 1970-01-01 to 2001-01-01.
    static let epochOffset: Int64 = 978_307_200

    private static let powersOfTen: [Double] = [1, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9]

    /// The text of a time: at most 30 ASCII bytes (`YYYY-MM-DDTHH:MM:SS.fffffffffZ`), held
    /// inline so that writing a date allocates nothing (a save holds tens of thousands).
    struct Text {
        /// Room for the longest text, 30 bytes.
        private var storage: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        private(set) var count = 0

        fileprivate mutating func append(_ byte: UInt8) {
            precondition(count < MemoryLayout.size(ofValue: storage), "a date's text is at most 30 bytes")
            withUnsafeMutableBytes(of: &storage) { $0[count] = byte }
            count += 1
        }

        /// Appends the last `width` decimal digits of `value` (≥ 0), zero-padded.
        fileprivate mutating func appendDigits(_ value: Int64, _ width: Int) {
            var divisor: Int64 = 1
            for _ in 1..<width { divisor *= 10 }
            while divisor > 0 {
                append(UInt8(value / divisor % 10) + 0x30)
                divisor /= 10
            }
        }

        func withUnsafeBufferPointer<Result>(_ body: (UnsafeBufferPointer<UInt8>) throws -> Result) rethrows -> Result {
            let count = count
            return try withUnsafeBytes(of: storage) { raw in
                try raw.withMemoryRebound(to: UInt8.self) { try body(UnsafeBufferPointer(rebasing: $0[..<count])) }
            }
        }

        var bytes: [UInt8] { withUnsafeBufferPointer { Array($0) } }
        var string: String { withUnsafeBufferPointer { String(decoding: $0, as: UTF8.self) } }
    }

    /// The shortest text with 0, 3, 6 or 9 fractional digits that reads back exactly, or nil
    /// when none does (or the year is outside 1…9999).
    static func readable(_ time: Double) -> Text? {
        var digits = 0
        while digits <= 9 {
            if let text = format(time, fractionDigits: digits),
                text.withUnsafeBufferPointer({ parse($0) })?.bitPattern == time.bitPattern
            {
                return text
            }
            digits += 3
        }
        return nil
    }

    /// Text with exactly `fractionDigits` digits after the seconds (0 = none), rounded.
    static func format(_ time: Double, fractionDigits: Int) -> Text? {
        guard time.isFinite, abs(time) < 400_000_000_000 else { return nil }
        let scale = powersOfTen[fractionDigits]
        var whole = time.rounded(.down)
        var fraction = ((time - whole) * scale).rounded()
        if fraction >= scale {
            whole += 1
            fraction -= scale
        }
        let unix = Int64(whole) + epochOffset
        let days = unix >= 0 ? unix / 86_400 : (unix - 86_399) / 86_400
        let secondsOfDay = unix - days * 86_400
        let (year, month, day) = civil(fromDays: days)
        guard (1...9999).contains(year) else { return nil }
        var out = Text()
        out.appendDigits(year, 4)
        out.append(UInt8(ascii: "-"))
        out.appendDigits(month, 2)
        out.append(UInt8(ascii: "-"))
        out.appendDigits(day, 2)
        out.append(UInt8(ascii: "T"))
        out.appendDigits(secondsOfDay / 3600, 2)
        out.append(UInt8(ascii: ":"))
        out.appendDigits(secondsOfDay / 60 % 60, 2)
        out.append(UInt8(ascii: ":"))
        out.appendDigits(secondsOfDay % 60, 2)
        if fractionDigits > 0 {
            out.append(UInt8(ascii: "."))
            out.appendDigits(Int64(fraction), fractionDigits)
        }
        out.append(UInt8(ascii: "Z"))
        return out
    }

    /// Reads `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z`. Nil for anything else.
    static func parse(_ text: some Collection<UInt8>) -> Double? {
        if let time = text.withContiguousStorageIfAvailable({ parse($0) }) { return time }
        return Array(text).withUnsafeBufferPointer { parse($0) }
    }

    /// Reads `YYYY-MM-DDTHH:MM:SS[.f{1,9}]Z` in place. Nil for anything else.
    static func parse(_ chars: UnsafeBufferPointer<UInt8>) -> Double? {
        guard chars.count >= 20, chars[chars.count - 1] == UInt8(ascii: "Z") else { return nil }
        func number(_ start: Int, _ length: Int) -> Int64? {
            var value: Int64 = 0
            for index in start..<(start + length) {
                let char = chars[index]
                guard char >= 0x30 && char <= 0x39 else { return nil }
                value = value * 10 + Int64(char - 0x30)
            }
            return value
        }
        guard let year = number(0, 4), chars[4] == UInt8(ascii: "-"),
            let month = number(5, 2), chars[7] == UInt8(ascii: "-"),
            let day = number(8, 2), chars[10] == UInt8(ascii: "T"),
            let hour = number(11, 2), chars[13] == UInt8(ascii: ":"),
            let minute = number(14, 2), chars[16] == UInt8(ascii: ":"),
            let second = number(17, 2),
            (1...12).contains(month), day >= 1, day <= daysInMonth(year, month),
            hour < 24, minute < 60, second < 60, year >= 1
        else { return nil }
        var fraction: Int64 = 0
        var digits = 0
        if chars.count > 20 {
            guard chars[19] == UInt8(ascii: "."), chars.count - 21 >= 1, chars.count - 21 <= 9,
                let value = number(20, chars.count - 21)
            else { return nil }
            fraction = value
            digits = chars.count - 21
        }
        let unix = days(fromCivil: year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
        return Double(unix - epochOffset) + Double(fraction) / powersOfTen[digits]
    }

    private static func daysInMonth(_ year: Int64, _ month: Int64) -> Int64 {
        switch month {
        case 2: return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's algorithm).
    static func days(fromCivil year: Int64, _ month: Int64, _ day: Int64) -> Int64 {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civil(fromDays days: Int64) -> (Int64, Int64, Int64) {
        let z = days + 719_468
        let era = (z >= 0 ? z : z - 146_096) / 146_097
        let dayOfEra = z - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let mp = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * mp + 2) / 5 + 1
        let month = mp < 10 ? mp + 3 : mp - 9
        return (month <= 2 ? yearOfEra + era * 400 + 1 : yearOfEra + era * 400, month, day)
    }
}
