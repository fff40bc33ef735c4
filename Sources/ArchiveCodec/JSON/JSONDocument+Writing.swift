/// A value of a parsed document written out again as JSON text, compact or indented as
/// `JSONOutput` indents the writers' text: what `/v1/decode?path=` answers with.
extension JSONDocument {
    /// Writes `value` into `output`. Keys and scalars are copied as the source spells them
    /// (the parser validated them, escapes included); containers are opened and closed by
    /// `output`, which indents them when it is pretty.
    ///
    /// Iterative, with one cursor per open container on a heap stack, so any nesting the
    /// parser took is safe for the thread's stack; linear in the value's size. Stops early
    /// when `output` passes its limit (`reachedLimit`), as the writers do, or when the
    /// thread's `ConversionDeadline` has passed (the caller checks it after).
    ///
    /// `leavingOut`: the offsets of members and elements written as if they were not there
    /// (a salvaged document's marks dropped, `droppingBroken`).
    func write(_ value: Value, to output: inout JSONOutput, leavingOut dropped: Set<UInt32> = []) {
        source.withUnsafeBufferPointer { source in
            func text(_ value: Value) -> UnsafeBufferPointer<UInt8> {
                UnsafeBufferPointer(rebasing: source[sourceRange(of: value)])
            }
            /// A container being written: its cursor, and whether it is an object.
            var open: [(cursor: Cursor, isObject: Bool)] = []
            func begin(_ value: Value) {
                switch kind(value) {
                case .object:
                    output.openObject()
                    open.append((children(of: value), true))
                case .array:
                    output.openArray()
                    open.append((children(of: value), false))
                default:
                    output.scalar(json: text(value))
                }
            }
            begin(value)
            var trips = 0
            while !open.isEmpty {
                trips &+= 1
                if output.reachedLimit() || ConversionDeadline.shouldStop(trips) { return }
                let last = open.count - 1
                if open[last].isObject {
                    guard let (key, member) = nextMember(&open[last].cursor) else {
                        open.removeLast()
                        output.closeObject()
                        continue
                    }
                    if !dropped.isEmpty, dropped.contains(member.offset) { continue }
                    output.key(json: text(key))
                    begin(member)
                } else {
                    guard let element = nextElement(&open[last].cursor) else {
                        open.removeLast()
                        output.closeArray()
                        continue
                    }
                    if !dropped.isEmpty, dropped.contains(element.offset) { continue }
                    begin(element)
                }
            }
        }
    }

    /// Writes the value at `path` (`value(at:)`: through the mapping's wrappers, `$ref`s
    /// followed) as JSON text ending with a newline, handing it to `sink` in pieces of about
    /// `JSONOutput.drainSize` bytes: the reply never holds more than the value's own text.
    public func writeValue(at path: ReadablePath, pretty: Bool, to sink: @escaping (UnsafeBufferPointer<UInt8>) -> Void) throws(PathFailure) {
        let value = try value(at: path)
        var output = JSONOutput(pretty: pretty, reserve: sourceRange(of: value).count + 1, sink: sink)
        write(value, to: &output)
        do throws(CodecError) {
            try ConversionDeadline.check()
        } catch {
            throw PathFailure(refusal: error)
        }
        // Indented text ends with a newline already (`JSONOutput.finish`).
        output.finish { _ in }
        if !pretty { [UInt8(ascii: "\n")].withUnsafeBufferPointer { sink($0) } }
    }
}
