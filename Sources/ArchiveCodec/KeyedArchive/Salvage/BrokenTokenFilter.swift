/// Replaces, in a salvaged archive's JSON text as it streams out, each placeholder string
/// (`BrokenToken`) with its `$broken` mark (`JSONOutput.brokenMark`), indented as the place
/// it stands at when the text is (two spaces a level, the mark's own lines one level deeper
/// than the line it begins on). A placeholder may be cut between two pieces of text: the
/// filter holds back fewer bytes than one placeholder until the next piece (or `finish`).
///
/// Linear in the text: each byte is looked at once (a placeholder begins `"~`, which nothing
/// else the view writes begins with but a string starting with `~`), a mark written once per
/// place. The text
/// handed on is bounded by `limit` (the conversion's output bound, `KeyedArchive.
/// maximumOutputSize`): past it nothing more is handed on and `finish` refuses.
final class BrokenTokenFilter {
    private let token: BrokenToken
    private let marks: [BinaryPlistSalvage.Mark]
    private let placeholderMarks: [Int32]
    private let pretty: Bool
    private let limit: Int
    private let sink: (UnsafeBufferPointer<UInt8>) -> Void
    /// Text not yet handed on: at most one placeholder's length less one byte between pieces.
    private var held: [UInt8] = []
    private var handedOn = 0
    /// The spaces that begin the current line (pretty text), and whether they are still being counted.
    private var indent = 0
    private var countingIndent = true
    private(set) var overLimit = false

    /// `placeholderMarks`: per placeholder index, the index of its mark in `marks`.
    init(token: BrokenToken, marks: [BinaryPlistSalvage.Mark], placeholderMarks: [Int32], pretty: Bool, limit: Int, sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) {
        self.token = token
        self.marks = marks
        self.placeholderMarks = placeholderMarks
        self.pretty = pretty
        self.limit = limit
        self.sink = sink
    }

    /// Takes the next piece of text.
    func feed(_ piece: UnsafeBufferPointer<UInt8>) {
        held.append(contentsOf: piece)
        scan(final: false)
    }

    /// Hands on what is held; refuses (`limitExceeded`) when the text passed the limit.
    func finish() throws(CodecError) {
        scan(final: true)
        if overLimit {
            throw CodecError(.limitExceeded, "the JSON with its $broken marks would be larger than \(limit) bytes", limit: limit)
        }
    }

    private func scan(final: Bool) {
        let end = final ? held.count : max(0, held.count - (token.length - 1))
        var output: [UInt8] = []
        output.reserveCapacity(held.count)
        var copied = 0
        var index = 0
        let (quote, tilde) = (UInt8(ascii: "\""), UInt8(ascii: "~"))
        while index < end {
            // A placeholder begins `"~`: anything else is copied as it is, unread.
            let found = held.withUnsafeBufferPointer { buffer -> Int? in
                var at = index
                while at < end {
                    if buffer[at] == quote, at + 1 < buffer.count, buffer[at + 1] == tilde { return at }
                    at += 1
                }
                return nil
            }
            guard let at = found else { break }
            if let placeholder = placeholderIndex(at: at) {
                output += held[copied..<at]
                noteIndent(of: held[copied..<at])
                appendMark(Int(placeholderMarks[placeholder]), to: &output)
                countingIndent = false
                index = at + token.length
                copied = index
            } else {
                index = at + 1
            }
        }
        // A placeholder read last may end past `end`: the text is handed on up to either.
        let upTo = max(end, copied)
        output += held[copied..<upTo]
        noteIndent(of: held[copied..<upTo])
        held.removeFirst(upTo)
        handOn(output)
    }

    /// Follows the indentation of the current line through `segment`, the next text handed
    /// on (pretty text only): the spaces after its last newline, or, without one, the spaces
    /// it adds to the line's.
    private func noteIndent(of segment: ArraySlice<UInt8>) {
        guard pretty else { return }
        if let newline = segment.lastIndex(of: 0x0A) {
            let rest = segment[(newline + 1)...]
            indent = rest.prefix { $0 == 0x20 }.count
            countingIndent = indent == rest.count
        } else if countingIndent {
            let spaces = segment.prefix { $0 == 0x20 }.count
            indent += spaces
            countingIndent = spaces == segment.count
        }
    }

    /// The index of a whole placeholder at `index` of `held`, if one is there.
    private func placeholderIndex(at index: Int) -> Int? {
        guard index + token.length <= held.count, held[(index + token.length - 1)] == UInt8(ascii: "\"") else { return nil }
        guard held[index..<(index + token.prefix.count)].elementsEqual(token.prefix) else { return nil }
        var value = 0
        for digit in held[(index + token.prefix.count)..<(index + token.length - 1)] {
            guard digit >= 0x30, digit <= 0x39 else { return nil }
            value = value * 10 + Int(digit - 0x30)
        }
        return value < placeholderMarks.count ? value : nil
    }

    private func appendMark(_ index: Int, to output: inout [UInt8]) {
        let mark = marks[index]
        var text = JSONOutput(pretty: pretty)
        text.brokenMark(offset: mark.offset, reason: mark.reason, rest: mark.rest)
        var written = text.finish()
        if pretty {
            if written.last == 0x0A { written.removeLast() }
            for byte in written {
                output.append(byte)
                if byte == 0x0A { output.append(contentsOf: repeatElement(0x20, count: indent)) }
            }
        } else {
            output += written
        }
    }

    private func handOn(_ output: [UInt8]) {
        guard !overLimit, !output.isEmpty else { return }
        handedOn += output.count
        if handedOn > limit {
            overLimit = true
            return
        }
        output.withUnsafeBufferPointer { sink($0) }
    }
}
