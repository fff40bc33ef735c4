/// How a conversion may spread its independent passes over threads the codec does not own.
///
/// The codec starts no threads. Passes whose work splits into disjoint ranges (validating a
/// binary plist's objects, classifying its entries) ask `run` to perform `jobs` closures, each writing only its own
/// result; `run` may call them one after another or at the same time on other threads, and
/// returns when all have finished. Results are combined in job order, so the outcome (and
/// which error a bad file gets) is the same for every `width`.
///
/// `archive-tool` lends one conversion both cores; the service keeps `.serial`, since its
/// workers already run one conversion per core.
public struct Parallelism: Sendable {
    /// How many jobs are worth making.
    public let width: Int
    /// The least work worth a job of its own, in objects (validation) or references (the
    /// JSON writer): below it, starting and joining costs more than the job saves. Tests
    /// and the fuzzer set 1 to make small inputs take the parallel paths.
    public let smallestPart: Int
    let run: @Sendable (_ jobs: Int, _ job: (Int) -> Void) -> Void

    /// `run(jobs, job)` must call `job(0)` … `job(jobs − 1)` exactly once each, on any
    /// threads, and return after the last has returned.
    public init(width: Int, smallestPart: Int = 1 << 15, run: @escaping @Sendable (_ jobs: Int, _ job: (Int) -> Void) -> Void) {
        self.width = max(1, width)
        self.smallestPart = max(1, smallestPart)
        self.run = run
    }

    public static let serial = Parallelism(width: 1) { jobs, job in
        for index in 0..<jobs { job(index) }
    }

    /// `count` items cut into at most `width` ranges of at least `smallestPart` items each.
    func ranges(of count: Int) -> Cuts {
        split(count, into: max(1, min(width, count / smallestPart)))
    }

    /// `count` items cut into up to four ranges per unit of `width` (of at least
    /// `smallestPart` items each), for passes whose parts take unequal time (one kind of
    /// entry bunched in one part of the file) and keep no table per part: a `run` that hands
    /// out jobs as threads come free then keeps every thread busy to the end.
    func chunks(of count: Int) -> Cuts {
        split(count, into: width == 1 ? 1 : max(1, min(4 * width, count / smallestPart)))
    }

    /// `ranges(of:)`, cut where `position` reaches equal shares of its span instead of at
    /// equal counts, for passes whose cost per item follows a position (the plist objects an
    /// entry's subtree takes up: the game save's later entries hold more of them). Found by
    /// binary search, which assumes `position` grows with the item, as it does in files
    /// written in order; otherwise the cuts are merely less even.
    func ranges(of count: Int, balancing position: (Int) -> Int) -> Cuts {
        let parts = max(1, min(width, count / smallestPart))
        guard parts > 1 else { return Cuts(whole: 0..<count) }
        let (first, last) = (position(0), position(count - 1))
        guard last > first else { return split(count, into: parts) }
        var cuts = [0]
        for part in 1..<parts {
            let target = first + Int((Double(last - first) * Double(part) / Double(parts)).rounded())
            // Every range keeps at least one item.
            var (low, high) = (cuts[cuts.count - 1] + 1, count - (parts - part))
            while low < high {
                let middle = (low + high) / 2
                if position(middle) < target { low = middle + 1 } else { high = middle }
            }
            cuts.append(low)
        }
        cuts.append(count)
        return Cuts(cuts)
    }

    private func split(_ count: Int, into parts: Int) -> Cuts {
        parts == 1 ? Cuts(whole: 0..<count) : Cuts((0...parts).map { count * $0 / parts })
    }

    /// Runs `body` over each range of `ranges` as one job and returns the results in order.
    func map<T>(_ ranges: Cuts, _ body: (Range<Int>) -> T) -> [T] {
        if ranges.count == 1 { return [body(ranges[0])] }
        let results = UnsafeMutableBufferPointer<T?>.allocate(capacity: ranges.count)
        results.initialize(repeating: nil)
        defer { results.deinitialize().deallocate() }
        run(ranges.count) { index in results[index] = body(ranges[index]) }
        return results.map { $0! }
    }

    /// `map(_:_:)` for jobs that may fail: throws the first error in job order (the same
    /// for every split), after handing each job that succeeded to `discard`, which frees
    /// what a result owns. Results and errors are kept as optionals, not a `Result`: see
    /// `Cuts`.
    func mapOrFirstError<T>(
        _ ranges: Cuts, _ body: (Range<Int>) throws(CodecError) -> T, discardingOnFailure discard: (T) -> Void = { _ in }
    ) throws(CodecError) -> [T] {
        if ranges.count == 1 { return [try body(ranges[0])] }
        let results = UnsafeMutableBufferPointer<T?>.allocate(capacity: ranges.count)
        results.initialize(repeating: nil)
        let errors = UnsafeMutableBufferPointer<CodecError?>.allocate(capacity: ranges.count)
        errors.initialize(repeating: nil)
        defer {
            results.deinitialize().deallocate()
            errors.deinitialize().deallocate()
        }
        run(ranges.count) { index in
            do throws(CodecError) {
                results[index] = try body(ranges[index])
            } catch {
                errors[index] = error
            }
        }
        if let error = errors.lazy.compactMap({ $0 }).first {
            for case let result? in results { discard(result) }
            throw error
        }
        return results.map { $0! }
    }
}

/// Ranges that follow one another (`0..<a`, `a..<b`, …), kept as their bounds: the parts a
/// pass is cut into (`Parallelism.ranges(of:)`). Not an array of `Range<Int>`: making one
/// costs a process a runtime conformance lookup (`Int: Comparable`, for the array's metadata),
/// which in a static executable scans every conformance the binary holds — about 0.2 M
/// instructions, a tenth of a small file's whole decode.
///
/// One range (every pass of a small document, and every pass of a serial run) is kept as the
/// range alone, with no array: a document makes several cuts, and an array each cost an
/// allocation and its release.
struct Cuts: RandomAccessCollection {
    /// The first range's start, then each range's end; empty when the cuts are one range,
    /// `whole`.
    private let bounds: [Int]
    private let whole: Range<Int>

    init(_ bounds: [Int]) {
        precondition(bounds.count >= 2, "at least one range")
        self.bounds = bounds.count == 2 ? [] : bounds
        whole = bounds[0]..<bounds[bounds.count - 1]
    }

    /// One range.
    init(whole: Range<Int>) {
        bounds = []
        self.whole = whole
    }

    /// `count` ranges of one element each, `0..<1`, `1..<2`, …: one job per part when the
    /// parts are numbered rather than cut from a range. One of them keeps no array.
    init(units count: Int) {
        self = count == 1 ? Cuts(whole: 0..<1) : Cuts(Array(0...count))
    }

    var startIndex: Int { 0 }
    var endIndex: Int { bounds.isEmpty ? 1 : bounds.count - 1 }

    subscript(index: Int) -> Range<Int> { bounds.isEmpty ? whole : bounds[index]..<bounds[index + 1] }
}
