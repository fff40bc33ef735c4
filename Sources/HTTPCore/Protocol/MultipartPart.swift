/// One part of a `multipart/form-data` body (RFC 7578): its form field's name, the file's name
/// when it is a file, and where its content lies in the body (a range, not a copy).
package struct MultipartPart: Equatable, Sendable {
    /// Its place in the body, from 1.
    package let number: Int
    /// The `name` parameter of its Content-Disposition.
    package let name: String
    /// `filename*` (RFC 8187, UTF-8) when given and readable, else `filename`; nil when neither.
    package let filename: String?
    /// Its content: the bytes between the blank line after its headers and the CRLF before the
    /// next boundary.
    package let content: Range<Int>

    /// What the part is called in a reply: its file's name, else (no file, or a browser's empty
    /// `filename=""` for a file input left empty) its field's name.
    package var label: String {
        guard let filename, !filename.isEmpty else { return name }
        return filename
    }
}

/// Why a `multipart/form-data` body cannot be read: the part where it went wrong (from 1), its
/// file's name when its headers gave one, and what is wrong.
package struct MultipartFailure: Error, Equatable, Sendable, CustomStringConvertible {
    package enum Kind: Equatable, Sendable {
        /// The body (or the Content-Type's boundary) is not framed as RFC 7578 says.
        case malformed
        /// The body is well framed so far but has more parts than the reader may return.
        case tooManyParts
    }

    package let kind: Kind
    package let part: Int
    package let filename: String?
    package let reason: String

    package init(_ kind: Kind = .malformed, part: Int, filename: String? = nil, reason: String) {
        self.kind = kind
        self.part = part
        self.filename = filename
        self.reason = reason
    }

    /// "part 2 (b.plist): its headers do not end with a blank line".
    package var description: String {
        let named = filename.map { " (\($0))" } ?? ""
        return "part \(part)\(named): \(reason)"
    }
}
