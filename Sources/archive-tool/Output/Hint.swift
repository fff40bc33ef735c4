import ArchiveCodec

/// What to do instead, when a conversion failed on an input that is plainly something else
/// (`InputKind`): the same mistakes the service names, worded in this tool's commands.
enum Hint {
    /// For a failed `decode` of `input`.
    static func decoding(_ input: [UInt8], error: CodecError) -> String? {
        guard error.kind == .malformedPlist else { return nil }
        switch InputKind(of: input) {
        case .json, .jsonWithByteOrderMark:
            return "this file is JSON: `archive-tool encode FILE` turns JSON into an archive"
        case .gzip:
            return "this file is gzip-compressed: `gunzip -c FILE | archive-tool decode -`"
        case .zlib:
            return
                "this file is zlib-compressed (deflate): inflate it first, e.g. `python3 -c 'import sys, zlib; sys.stdout.buffer.write(zlib.decompress(sys.stdin.buffer.read()))' < FILE | archive-tool decode -`"
        case .binaryPropertyList, .xmlPropertyList, .typedStream, .unknown:
            return nil
        }
    }

    /// For a failed `encode` of `input`.
    static func encoding(_ input: [UInt8], error: CodecError) -> String? {
        guard error.kind == .malformedJSON || error.kind == .invalidDocument else { return nil }
        switch InputKind(of: input) {
        case .binaryPropertyList, .xmlPropertyList:
            return "this file is a property list: `archive-tool decode FILE` turns an archive into JSON"
        case .typedStream:
            return "this file is a typedstream: `archive-tool decode FILE` turns it into JSON"
        case .jsonWithByteOrderMark:
            return "the file starts with a UTF-8 byte order mark (EF BB BF), which JSON does not allow: remove it, e.g. sed '1s/^\\xEF\\xBB\\xBF//' FILE"
        case .gzip:
            return "this file is gzip-compressed: `gunzip -c FILE | archive-tool encode -`"
        case .zlib, .json, .unknown:
            return nil
        }
    }
}
