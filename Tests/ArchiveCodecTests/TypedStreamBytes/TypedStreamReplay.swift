@testable import ArchiveCodec

/// Builds a stream anew through `TypedStreamBuilder`'s calls, from what a model says each value
/// is (`TypedStream.content(of:)`), as a caller building by hand would: the test that the
/// builder can say everything a real stream holds, and that its defaults are Apple's bytes.
/// Classes are defined superclass first where first used; objects are begun where they first
/// occur (the walk enters an object there only).
enum TypedStreamReplay {
    static func rebuild(_ stream: TypedStream) throws(CodecError) -> TypedStream {
        var replay = Replay(stream: stream, builder: TypedStreamBuilder(byteOrder: stream.byteOrder, systemVersion: stream.systemVersion))
        try replay.run()
        return try replay.builder.finish()
    }
}

private struct Replay {
    let stream: TypedStream
    var builder: TypedStreamBuilder
    var walk: TypedStreamWalk
    var objects: [Int: Int] = [:]
    var classes: [Int: Int] = [:]
    var cStrings: [Int: Int] = [:]

    init(stream: TypedStream, builder: TypedStreamBuilder) {
        self.stream = stream
        self.builder = builder
        walk = TypedStreamWalk(stream)
    }

    mutating func run() throws(CodecError) {
        while let step = walk.next() {
            switch step {
            case .group(let index, _): try builder.beginGroup(encoding: Array(stream.encoding(ofGroup: index)))
            case .value(let index): try value(index)
            case .endOfObject: try builder.endObject()
            case .endOfGroup, .endOfComposite: try builder.end()
            }
        }
    }

    mutating func value(_ index: Int) throws(CodecError) {
        let form = stream.values[index].form
        switch stream.content(of: index) {
        case .signed(let value): try builder.integer(value, form: form)
        case .unsigned(let value): try builder.unsigned(value, form: form)
        case .float(let bits): try builder.float(Float(bitPattern: bits), form: form)
        case .double(let bits): try builder.double(Double(bitPattern: bits), form: form)
        case .byteString(let span): try builder.byteString(span.map { Array(stream.bytes($0)) })
        case .byteArray(let span): try builder.byteArray(Array(stream.bytes(span)))
        case .cString(let string):
            if let string, let made = cStrings[string] { return try builder.cString(reference: made) }
            let made = try builder.cString(string.map { Array(stream.sharedString(Int(stream.cStrings[$0]))) })
            if let string { cStrings[string] = made }
        case .atom(let string): try builder.atom(string.map { Array(stream.sharedString($0)) })
        case .selector(let string): try builder.selector(string.map { Array(stream.sharedString($0)) })
        case .classReference(let index): try builder.classReference(try index.map { (index) throws(CodecError) in try define(index) })
        case .object(let index):
            guard let index else { return try builder.object(nil) }
            if let made = objects[index] { return try builder.object(made) }
            let object = stream.objects[index]
            objects[index] = try builder.beginObject(class: try define(Int(object.classIndex)))
            walk.enter(object: index)
        case .ignored: try builder.ignored()
        case .array, .structure, .pointer:
            try builder.beginComposite()
            walk.enter(childrenOf: index)
        }
    }

    /// The builder's index of class `index`, defining it and the superclasses it lacks first.
    mutating func define(_ index: Int) throws(CodecError) -> Int {
        var missing: [Int] = []
        var next: Int? = index
        while let current = next, classes[current] == nil {
            missing.append(current)
            next = stream.classes[current].superclass.map(Int.init)
        }
        for current in missing.reversed() {
            let entry = stream.classes[current]
            classes[current] = try builder.defineClass(
                name: Array(stream.name(ofClass: current)), version: entry.version, superclass: entry.superclass.map { classes[Int($0)]! })
        }
        return classes[index]!
    }
}
