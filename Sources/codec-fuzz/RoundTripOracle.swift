import ArchiveCodec

/// The properties every input must have; counts what happened to the inputs.
struct RoundTripOracle {
    /// The fuzzer runs on the main thread: stay well inside an 8 MiB stack.
    static let stackSize = 6 << 20
    var converted = 0, refused = 0, tooDeep = 0
    /// Whether inputs refused whole are read again with salvage (`checkSalvage`), and how many
    /// were salvaged.
    var salvage = false
    var salvaged = 0

    mutating func check(_ input: [UInt8]) -> String? {
        if input.first == UInt8(ascii: "{") || input.first == UInt8(ascii: "[") {
            return checkDocument(input)
        }
        guard let parsed = try? Archive(parsing: input) else {
            refused += 1
            return salvage ? checkSalvage(input) : nil
        }
        return checkArchive(parsed, input) ?? checkNested(parsed)
    }

    /// With its nested payloads decoded, a document encodes back (in its own format) to an
    /// equivalent one: the payloads' graphs are compared, not their bytes.
    private func checkNested(_ archive: Archive) -> String? {
        let json: [UInt8]
        do {
            let plan = try archive.plan(view: .readable, pretty: false, nested: DecodePolicy(stackSize: Self.stackSize))
            guard plan.depth <= StackBudget.maxDepth(stackSize: Self.stackSize) else { return nil }
            var text: [UInt8] = []
            try archive.writeJSON(view: .readable, pretty: false, plan: plan, parallelism: .serial) { text += $0 }
            json = text
        } catch {
            return nil  // refused as without payloads (a limit), or a payload over one
        }
        do {
            let copy = try Archive(parsing: JSONDocument(parsing: json).archive(format: archive.sourceFormat))
            if let difference = archive.difference(from: copy) { return "the round trip with nested payloads is not equivalent: \(difference)" }
        } catch  where error.kind == .invalidDocument && (error.message.contains("XML plist can write") || error.message.contains("reads back")) {
            return nil  // what XML cannot hold, in a nested XML property list
        } catch {
            return "the JSON with nested payloads does not encode back: \(error)"
        }
        return nil
    }

    private mutating func checkDocument(_ input: [UInt8]) -> String? {
        let encoded: [UInt8]
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: input)
            encoded = try document.archive(format: .binary)
        } catch {
            refused += 1
            return nil
        }
        // What the encoder accepts, the decoder reads back, in every format.
        let archive: Archive
        do {
            archive = try Archive(parsing: encoded)
        } catch {
            return "a JSON document encoded into an archive that does not decode: \(error)"
        }
        if let problem = checkReencodes(archive, encoded, format: .binary) { return problem }
        do {
            let xml = try document.archive(format: .xml)
            if let problem = checkReencodes(try Archive(parsing: xml), xml, format: .xml) { return problem }
        } catch  where error.kind == .invalidDocument && (error.message.contains("XML plist can write") || error.message.contains("reads back")) {
            // What XML cannot hold is refused.
        } catch {
            return "a JSON document that encodes to binary fails to xml, or its XML does not decode: \(error)"
        }
        // The streamed form (large documents in archive-tool) must hold the same graph.
        var streamed: [UInt8] = []
        do {
            try document.writeArchive { streamed.append(contentsOf: $0) }
            if let difference = try Archive(parsing: streamed).difference(from: archive) {
                return "the streamed archive differs from the one built in memory: \(difference)"
            }
        } catch {
            return "a JSON document that encodes in memory fails when streamed: \(error)"
        }
        return checkArchive(archive, encoded)
    }

    /// An archive the encoder wrote (`encoded`, in `format`) decodes to its readable JSON, and
    /// that JSON encodes again to the same archive: the same bytes for a typedstream (its
    /// writer spells everything one way), an equivalent graph for the others.
    private func checkReencodes(_ archive: Archive, _ encoded: [UInt8], format: PlistFormat) -> String? {
        guard archive.depth(of: .readable) <= StackBudget.maxDepth(stackSize: Self.stackSize) else { return nil }
        let json: [UInt8]
        do {
            json = try archive.json(view: .readable, pretty: false)
        } catch {
            return "a JSON document encoded (\(format)) into an archive whose JSON the decoder refuses: \(error)"
        }
        do {
            let again = try JSONDocument(parsing: json).archive(format: format)
            if archive.isTypedStream {
                return again == encoded ? nil : "a typedstream's JSON encodes again to other bytes"
            }
            if let difference = archive.difference(from: try Archive(parsing: again), plistDatesToWholeSeconds: format == .xml) {
                return "an encoded archive's JSON encodes again (\(format)) to another graph: \(difference)"
            }
        } catch {
            return "an encoded archive's JSON does not encode again (\(format)): \(error)"
        }
        return nil
    }

    /// Validation in ranges and two writers meeting at the middle reference (what
    /// archive-tool does with two cores) must give one writer's text; jobs run in reverse
    /// order and every input is cut, however small.
    private func checkParallelPaths(_ input: [UInt8], json: [UInt8]) -> String? {
        let halves = Parallelism(width: 2, smallestPart: 1) { jobs, job in
            for index in (0..<jobs).reversed() { job(index) }
        }
        do {
            let archive = try KeyedArchive(parsing: input, parallelism: halves)
            let plan = try archive.plan(view: .readable, pretty: false, parallelism: halves)
            var text: [UInt8] = []
            try archive.writeJSON(view: .readable, pretty: false, plan: plan, parallelism: halves) { text += $0 }
            return text == json ? nil : "two writers wrote other JSON than one"
        } catch {
            return "the archive fails when validated in ranges or written in halves: \(error)"
        }
    }

    /// `parsed` is what `input` reads as.
    private mutating func checkArchive(_ parsed: Archive, _ input: [UInt8]) -> String? {
        if parsed.isTypedStream { return checkTypedStream(parsed) }
        guard let archive = parsed.keyedArchive else { return checkPropertyList(parsed) }
        guard archive.depth(of: .readable) <= StackBudget.maxDepth(stackSize: Self.stackSize) else {
            tooDeep += 1
            return nil
        }
        let json: [UInt8]
        let pretty: [UInt8]
        do {
            _ = try archive.json(view: .raw, pretty: true)
            json = try archive.json(view: .readable, pretty: false)
            pretty = try archive.json(view: .readable, pretty: true)
        } catch {
            refused += 1  // larger than the JSON size limit
            return nil
        }
        if let problem = checkParallelPaths(input, json: json) { return problem }
        let document: JSONDocument
        do {
            document = try JSONDocument(parsing: json)
            _ = try JSONDocument(parsing: pretty)
        } catch {
            return "the readable JSON of an archive does not parse: \(error)"
        }
        for format in [PlistFormat.binary, .xml] {
            do {
                let copy = try KeyedArchive(parsing: document.archive(format: format))
                if let difference = archive.difference(from: copy, plistDatesToWholeSeconds: format == .xml) {
                    return "\(format) round trip is not equivalent: \(difference)"
                }
            } catch
                where format == .xml && error.kind == .invalidDocument
                && (error.message.contains("XML plist can write") || error.message.contains("reads back"))
            {
                continue  // what XML cannot hold (far dates, CF$UID dictionaries) is refused, not rewritten
            } catch {
                return "the readable JSON of an archive does not encode to \(format): \(error)"
            }
        }
        converted += 1
        return nil
    }

    /// A plain property list: its readable JSON parses and writes back, binary and XML, to the
    /// same values (XML keeps whole seconds of a date only).
    private mutating func checkPropertyList(_ list: Archive) -> String? {
        guard let json = readableJSON(list) else { return nil }
        do {
            _ = try list.json(view: .raw, pretty: true)
        } catch {
            refused += 1
            return nil
        }
        for format in [PlistFormat.binary, .xml] {
            do {
                let copy = try Archive(parsing: JSONDocument(parsing: json).archive(format: format))
                if let difference = list.difference(from: copy, plistDatesToWholeSeconds: format == .xml) {
                    return "\(format) round trip of a plain property list is not equivalent: \(difference)"
                }
            } catch  where format == .xml && error.kind == .invalidDocument && error.message.contains("XML plist can write") {
                continue
            } catch {
                return "the readable JSON of a plain property list does not encode to \(format): \(error)"
            }
        }
        converted += 1
        return nil
    }

    /// A typedstream: its JSON parses and writes back to a stream of the same JSON (the same
    /// bytes when the stream spells everything as Apple's writer does).
    private mutating func checkTypedStream(_ stream: Archive) -> String? {
        // A decode under a depth limit takes the stream's bound for its depth and does not
        // measure: the bound must never be below the depth measured.
        for numbers in [NumberWrapping.nonFinite, .integers, .all] {
            guard let bound = try? stream.plan(view: .readable, pretty: false, numbers: numbers, depthLimit: .max).depth,
                let measured = try? stream.plan(view: .readable, pretty: false, numbers: numbers).depth
            else { continue }
            if bound < measured { return "a typedstream's depth bound \(bound) is below its measured depth \(measured) (numbers: \(numbers))" }
        }
        guard let json = readableJSON(stream) else { return nil }
        do {
            let copy = try Archive(parsing: JSONDocument(parsing: json).archive(format: .binary))
            if let difference = stream.difference(from: copy) { return "a typedstream's round trip is not equivalent: \(difference)" }
        } catch {
            return "the JSON of a typedstream does not encode back: \(error)"
        }
        converted += 1
        return nil
    }

    /// The readable JSON of a document that is not a keyed archive; nil (counted) when it is
    /// too deep for the fuzzer's stack or over the size limit.
    private mutating func readableJSON(_ document: Archive) -> [UInt8]? {
        guard document.depth(of: .readable) <= StackBudget.maxDepth(stackSize: Self.stackSize) else {
            tooDeep += 1
            return nil
        }
        do {
            return try document.json(view: .readable, pretty: false)
        } catch {
            refused += 1
            return nil
        }
    }
}
