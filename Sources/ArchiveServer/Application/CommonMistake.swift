import ASCIIText
import ArchiveCodec
import HTTPCore

/// The mistakes people make first when they send a conversion with curl, recognised from the
/// request's Content-Type and its body's first bytes, so that a refusal says what to send
/// instead (with the curl flag) rather than what the codec could not read.
///
/// Recognition is only ever asked for after the request failed or could not be taken (a
/// conversion that succeeds is never second-guessed), and reads at most the first bytes of
/// the body and, for the raw view, its top-level keys.
enum CommonMistake: Equatable, Sendable {
    /// A multipart form (the file wrapped in boundaries) where one is not read: sent to
    /// `/v1/encode`, or to `/v1/decode` without the `multipart/form-data` Content-Type that
    /// gives its boundary (a decode with it reads every part, `FormDecode`).
    case multipartForm
    /// `curl --data @save.plist`: sent as a form, and curl removed the file's CR and LF bytes.
    case newlinesStripped
    /// JSON sent to `/v1/decode`.
    case jsonToDecode
    /// A property list sent to `/v1/encode`.
    case archiveToEncode
    /// A typedstream sent to `/v1/encode`.
    case typedStreamToEncode
    /// The raw view (`?view=raw`) sent back to `/v1/encode`, which takes the readable view.
    case rawViewToEncode
    /// JSON that starts with a UTF-8 byte order mark.
    case byteOrderMark
    /// A compressed body without a `Content-Encoding` that says so (`gzip` or `deflate`).
    case compressed(coding: String)
    /// JSON to `/v1/encode` under a Content-Type that is not JSON (curl's `--data` default).
    case jsonWithoutContentType

    /// The mistake a failed request on `route` shows, if it is one of these.
    static func find(route: Route, contentType: String?, body: [UInt8]) -> CommonMistake? {
        let media = contentType.map(MediaType.essence) ?? ""
        if media == "multipart/form-data" || Self.looksLikeMultipart(body) { return .multipartForm }
        let kind = InputKind(of: body)
        if let coding = ContentCoding.sniff(body) { return .compressed(coding: coding.rawValue) }
        switch route {
        case .decode:
            if kind == .json || kind == .jsonWithByteOrderMark { return .jsonToDecode }
            if media == "application/x-www-form-urlencoded", Self.showsNewlinesStripped(body) { return .newlinesStripped }
        case .encode:
            if kind == .jsonWithByteOrderMark || body.starts(with: [0xEF, 0xBB, 0xBF]) { return .byteOrderMark }
            if kind == .binaryPropertyList || kind == .xmlPropertyList { return .archiveToEncode }
            if kind == .typedStream { return .typedStreamToEncode }
            if kind == .json, let start = Self.firstNonSpace(body), body[start] == UInt8(ascii: "{"), Self.isRawView(body[start...]) {
                return .rawViewToEncode
            }
            if !media.isEmpty, !MediaType.isJSON(media), kind == .json {
                return .jsonWithoutContentType
            }
        case .healthz, .readyz, .metrics, .openapi, .page:
            break
        }
        return nil
    }

    /// What to do instead, as the problem's `detail` says it (before what went wrong).
    func fix(on route: Route) -> String {
        switch self {
        case .multipartForm:
            route == .encode
                ? "This is a multipart form upload (curl -F). Send the file itself as the body: curl --data-binary @team.json -H 'Content-Type: application/json'"
                : "This is a multipart form upload (curl -F) without its multipart/form-data Content-Type and boundary. Let curl -F set the Content-Type (one JSON line per file), or send the file itself as the body: curl --data-binary @save.plist"
        case .newlinesStripped:
            "curl --data removes the file's newline bytes, which breaks a binary plist. Send it unchanged: curl --data-binary @save.plist"
        case .jsonToDecode:
            "This is JSON: /v1/decode takes an archive. To turn JSON into an archive, POST it to /v1/encode with -H 'Content-Type: application/json'."
        case .archiveToEncode:
            "This is a property list: /v1/encode takes JSON. To turn an archive into JSON, POST it to /v1/decode."
        case .typedStreamToEncode:
            "This is an NSArchiver typedstream: /v1/encode takes JSON. To turn it into JSON, POST it to /v1/decode."
        case .rawViewToEncode:
            "This is the raw view (?view=raw), which shows the plist as it is stored and does not encode back. Decode without view=raw and send that JSON to /v1/encode."
        case .byteOrderMark:
            "The JSON starts with a UTF-8 byte order mark (EF BB BF), which JSON does not allow. Remove it, e.g. sed '1s/^\\xEF\\xBB\\xBF//' file.json"
        case .compressed(let coding):
            "The body is \(coding)-compressed. Say so with -H 'Content-Encoding: \(coding)', or send it uncompressed."
        case .jsonWithoutContentType:
            "The body looks like JSON but was sent as another Content-Type (curl --data sends application/x-www-form-urlencoded). Add -H 'Content-Type: application/json'."
        }
    }

    /// A binary plist that shows what `curl --data @file` does to one: not a single CR or LF
    /// byte left (curl removes them all), and a trailer whose offset table no longer ends where
    /// the trailer begins, because the bytes before it moved. curl's default Content-Type is
    /// the same for `--data-binary`, so it proves nothing alone: a plist that is merely not an
    /// archive, or broken some other way, is not told to stop using `--data`.
    static func showsNewlinesStripped(_ body: [UInt8]) -> Bool {
        guard body.count >= 40, body.starts(with: "bplist0".utf8),
            !body.contains(where: { $0 == 0x0A || $0 == 0x0D })
        else { return false }
        let trailer = body[(body.count - 32)...]
        let offsetSize = Int(trailer[trailer.startIndex + 6])
        func number(at position: Int) -> UInt64 {
            trailer[(trailer.startIndex + position)..<(trailer.startIndex + position + 8)].reduce(0) { $0 << 8 | UInt64($1) }
        }
        let (objects, tableOffset) = (number(at: 8), number(at: 24))
        guard (1...8).contains(offsetSize), objects < UInt64(body.count), tableOffset < UInt64(body.count) else { return true }
        return tableOffset + objects * UInt64(offsetSize) != UInt64(body.count - 32)
    }

    /// A multipart body opens with `--boundary` and a part header naming a form field.
    private static func looksLikeMultipart(_ body: [UInt8]) -> Bool {
        guard body.starts(with: "--".utf8) else { return false }
        let head = String(decoding: body.prefix(512), as: UTF8.self).asciiLowercased()
        return head.contains("\r\ncontent-disposition: form-data")
    }

    private static func firstNonSpace(_ body: [UInt8]) -> Int? {
        body.prefix(4096).firstIndex { $0 != 0x20 && $0 != 0x0A && $0 != 0x0D && $0 != 0x09 }
    }

    /// The raw view's members: `"$archiver":` and `"$objects":[`, anywhere in the text (their
    /// order follows the archive's). Only asked once the document was refused.
    private static func isRawView(_ text: ArraySlice<UInt8>) -> Bool {
        contains(text, "\"$archiver\":") && contains(text, "\"$objects\":[")
    }

    private static func contains(_ text: ArraySlice<UInt8>, _ needle: StaticString) -> Bool {
        let pattern = UnsafeBufferPointer(start: needle.utf8Start, count: needle.utf8CodeUnitCount)
        return text.withUnsafeBufferPointer { haystack in
            guard haystack.count >= pattern.count else { return false }
            var index = 0
            while index <= haystack.count - pattern.count {
                if haystack[index] == pattern[0], UnsafeBufferPointer(rebasing: haystack[index..<(index + pattern.count)]).elementsEqual(pattern) {
                    return true
                }
                index += 1
            }
            return false
        }
    }
}
