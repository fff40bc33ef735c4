/// The summary as JSON (docs/service.md, "Summaries"; openapi.yaml, `Summary`): compact, or
/// indented with `pretty`; members in a fixed order, optional ones (`classesNotListed`,
/// `keysNotListed`, `kindsNotListed`, `dictionaryKeysNotListed`, `path`, `file`) only when they are not
/// zero or nil, and `containers` and `dictionaryKeys` only when the document has any.
extension ArchiveSummary {
    public func json(pretty: Bool) -> [UInt8] {
        var out = JSONOutput(pretty: pretty)
        out.openObject()
        out.key("format")
        out.string(format.rawValue)
        Self.member(&out, "files", files)
        Self.member(&out, "bytes", bytes)
        Self.member(&out, "objects", objects)
        Self.member(&out, "shared", shared)
        Self.member(&out, "cyclic", cyclic)
        out.key("classes")
        out.openArray()
        for use in classes { Self.write(use, to: &out) }
        out.closeArray()
        if classesNotListed > 0 { Self.member(&out, "classesNotListed", classesNotListed) }
        out.key("nesting")
        out.openObject()
        Self.member(&out, "readable", readableNesting)
        Self.member(&out, "raw", rawNesting)
        out.closeObject()
        out.key("nestedPayloads")
        out.openArray()
        for payload in nestedPayloads {
            out.openObject()
            out.key("format")
            out.string(payload.format.rawValue)
            Self.member(&out, "count", payload.count)
            out.closeObject()
        }
        out.closeArray()
        out.key("dataKinds")
        out.openArray()
        for kind in dataKinds {
            out.openObject()
            out.key("kind")
            out.string(kind.kind)
            Self.member(&out, "count", kind.count)
            Self.member(&out, "bytes", kind.bytes)
            out.closeObject()
        }
        out.closeArray()
        out.key("largestStrings")
        Self.write(largestStrings, to: &out)
        out.key("largestData")
        Self.write(largestData, to: &out)
        if arrays > 0 || dictionaries > 0 {
            out.key("containers")
            out.openObject()
            Self.member(&out, "arrays", arrays)
            Self.member(&out, "dictionaries", dictionaries)
            out.closeObject()
        }
        if !dictionaryKeys.isEmpty || dictionaryKeysNotListed > 0 {
            out.key("dictionaryKeys")
            Self.write(dictionaryKeys, to: &out)
            if dictionaryKeysNotListed > 0 { Self.member(&out, "dictionaryKeysNotListed", dictionaryKeysNotListed) }
        }
        out.closeObject()
        return out.finish()
    }

    private static func member(_ out: inout JSONOutput, _ key: StaticString, _ value: Int) {
        out.key(key)
        out.int(Int64(value))
    }

    private static func write(_ use: ClassUse, to out: inout JSONOutput) {
        out.openObject()
        out.key("class")
        out.string(use.name)
        out.key("chain")
        out.openArray()
        for name in use.chain { out.string(name) }
        out.closeArray()
        member(&out, "count", use.count)
        member(&out, "shared", use.shared)
        member(&out, "cyclic", use.cyclic)
        out.key("keys")
        write(use.keys, to: &out)
        if use.keysNotListed > 0 { member(&out, "keysNotListed", use.keysNotListed) }
        out.closeObject()
    }

    private static func write(_ keys: [KeyUse], to out: inout JSONOutput) {
        out.openArray()
        for use in keys {
            out.openObject()
            out.key("key")
            out.string(use.key)
            member(&out, "count", use.count)
            out.key("kinds")
            out.openObject()
            for kind in use.kinds {
                var name = kind.kind
                name.withUTF8 { out.key(utf8: $0) }
                out.int(Int64(kind.count))
            }
            out.closeObject()
            if use.kindsNotListed > 0 { member(&out, "kindsNotListed", use.kindsNotListed) }
            out.closeObject()
        }
        out.closeArray()
    }

    private static func write(_ values: [LargeValue], to out: inout JSONOutput) {
        out.openArray()
        for value in values {
            out.openObject()
            member(&out, "length", value.length)
            out.key("preview")
            out.string(value.preview)
            if let path = value.path {
                out.key("path")
                out.string(path)
            }
            if let file = value.file {
                out.key("file")
                out.string(file)
            }
            if let bytes = value.fileBytes {
                var base64: [UInt8] = []
                bytes.withUnsafeBufferPointer { Base64.encode($0, into: &base64) }
                out.key("fileBase64")
                base64.withUnsafeBufferPointer { out.string(utf8: $0) }
            }
            out.closeObject()
        }
        out.closeArray()
    }
}
