import ArchiveCodec

extension RoundTripOracle {
    /// With `--salvage`: an input refused whole that salvage reads (a damaged typedstream,
    /// binary property list or keyed archive) gives JSON holding a `$broken` mark for each break
    /// it counts (a typedstream exactly one; a property list's or archive's shared object is
    /// counted once and marked at each place it stands), which an encode refuses (naming the way out) and, with what holds
    /// each mark left out, writes a document that reads whole and whose JSON encodes again to
    /// the same graph (not always the same bytes: see below). nil when all holds, or salvage refuses too.
    mutating func checkSalvage(_ input: [UInt8]) -> String? {
        guard let archive = try? Archive(parsing: input, salvaging: true) else { return nil }
        guard archive.breaks > 0 else { return "salvage read whole an input refused whole" }
        salvaged += 1
        let json: [UInt8]
        let document: JSONDocument
        do {
            json = try archive.json(view: .readable, pretty: false)
            document = try JSONDocument(parsing: json)
        } catch let error where error.kind == .limitExceeded {
            return nil  // its JSON past the output bound, as a whole document's would be
        } catch {
            return "a salvaged document's JSON is refused, or is no JSON: \(error)"
        }
        let marks = json.indices.filter { json[$0...].starts(with: Self.markKey) }.count
        guard archive.isTypedStream ? marks == archive.breaks : marks >= archive.breaks else {
            return "a salvaged document counts \(archive.breaks) breaks and its JSON holds \(marks) marks"
        }
        do {
            _ = try document.archive(format: .binary)
            return "a salvaged document's JSON encodes with its $broken mark"
        } catch {
            guard error.remedy == .dropBroken else { return "a salvaged document's JSON is refused, but not for its mark: \(error)" }
        }
        do {
            let written = try document.droppingBroken().archive(format: .binary)
            let again = try Archive(parsing: written)
            guard again.breaks == 0 else { return "a document written without the marks has breaks" }
            // Leaving a mark's place out can leave a shared object's body after a reference to
            // it (its first place was in what was left out): the archive written places it
            // where the readable view puts bodies, so the next round may order the objects
            // otherwise. The graph is what must hold.
            let rewritten = try JSONDocument(parsing: again.json(view: .readable, pretty: false)).archive(format: .binary)
            guard rewritten != written else { return nil }
            return try Archive(parsing: rewritten).difference(from: again).map { "a document written without the marks encodes again to another graph: \($0)" }
        } catch {
            return "a salvaged document without its marks does not encode, decode and encode again: \(error)"
        }
    }

    private static let markKey = Array("\"$broken\"".utf8)
}
