/// Where the readable view writes each object's body, and how deeply the view then nests.
///
/// **Shallowest placement** (docs/mapping.md, "Placement"): an object written with `$id`
/// (shared, cyclic, or moved to the table) has its body at its shallowest reference,
/// breadth-first over the object graph from the `$top` keys, references taken in the order
/// the document writes them (the first one reached wins). Every other reference to it is
/// `{"$ref": n}`, including references that come before the body in the text. A cyclic save
/// therefore nests as deep as its schema, not as its object count.
///
/// **Bounded nesting** (`bound`): an object whose body would nest deeper than the bound is
/// written in the document's top-level `$table` instead, with `$id`, and referenced from
/// where it would have stood; the document then takes the envelope form (`$top`). A table
/// entry's body opens at level 3, so an archive fits every bound of at least `minimumBound`
/// (at most 6 for anything NSKeyedArchiver writes; deeper only with nested inline plist
/// containers, which no class archives, or readable bytes stored otherwise than
/// NSKeyedArchiver stores them).
///
/// **Accounts under a bound** (`accounts`): a data value's readable account (a bookmark's,
/// an alias record's) nests below it. When the document with its accounts passes the bound,
/// it is placed again without them (bytes alone, docs/mapping.md, "Data values"), and only
/// then with the table: the table's guarantees hold as before.
///
/// **The unit** of `depth` is JSON nesting: the most arrays and objects open at any point of
/// the text (`"x"` is 0, `[]` 1, `[{}]` 2). It is what JSON parsers limit, and at least the
/// writer's recursion depth (every level the writer recurses opens a bracket), so comparing it
/// with `StackBudget` keeps the writer within its stack.
///
/// Found without recursion in one pass over the references, breadth-first. The writer and the
/// split writer's walk (`ResumeWalk`) decide body or `$ref` from `bodyHolder` and the document
/// order alone, so every writer agrees.
struct Placement: Sendable {
    /// `bodyHolder[uid]` for an entry nothing has placed (an entry written without `$id` has its
    /// body at its one reference; an unreachable one has none).
    static let unplaced = UInt32.max
    /// `bodyHolder[uid]` for an entry written in `$table`.
    static let inTable = UInt32.max - 1
    /// The body that holds the `$top` values (UID 0, `$null`, is never a body itself).
    static let topBody: UInt32 = 0

    /// Per entry written with `$id`: the object whose body holds its body (at the first
    /// reference from there in document order), `topBody`, `inTable` or `unplaced`.
    let bodyHolder: [UInt32]
    /// Per entry, whether it is written with `$id`: `KeyedArchive.carriesID` plus the
    /// entries moved to the table.
    let carriesID: [Bool]
    /// The entries written in `$table`, in table order.
    let table: [Int32]
    /// The JSON nesting of the document.
    let depth: Int
    /// Per entry written with `$id`, its number: 1, 2, 3 … in the order this pass reaches the
    /// entries (breadth-first, references in document order; table entries when moved). A
    /// function of the document alone, never of `$objects` order, so that decode → encode →
    /// decode writes the same numbers (the encoder numbers entries in an order of its own).
    let writtenIDs: [UInt32]
    /// Whether the document is the `$top` envelope rather than the root object itself.
    let envelope: Bool
    /// Per `$id` number n, at n − 1, the entry that carries it, when the placement kept them
    /// (`GrowingPlacement`'s do; else found from `writtenIDs`).
    private(set) var entriesByID: [Int32]?
    /// The numbers written in typed wrappers (`$integer`, `$real`).
    let numbers: NumberWrapping
    /// Whether data values carry their readable accounts (`$bookmark`, `$alias`): always, but
    /// under a bound the document with them does not fit.
    let accounts: Bool

    /// `bound`: the deepest nesting the client accepts (nil: no bound). Throws
    /// `depthBoundTooSmall` when some body cannot fit under it even in the table.
    /// `parallelism`: how scanning bodies may be split (the result is the same for every choice).
    /// `archive` is borrowed here and in the pass: an initialiser's argument is otherwise a copy
    /// of the archive (its tables retained and released), three per placement where only the
    /// scanner keeps one.
    init(archive: borrowing KeyedArchive, view: BinaryPlistView, numbers: NumberWrapping, bound: Int?, parallelism: Parallelism = .serial) throws(CodecError) {
        var pass = PlacementPass(archive: archive, view: view, numbers: numbers, accounts: true, envelope: !archive.isPlainRoot)
        pass.place(bound: nil, parallelism: parallelism)
        try ConversionDeadline.check()
        if let bound, pass.depth > bound {
            // Too deep: without the data values' accounts first.
            pass = PlacementPass(archive: archive, view: view, numbers: numbers, accounts: false, envelope: !archive.isPlainRoot)
            pass.place(bound: nil, parallelism: parallelism)
            try ConversionDeadline.check()
        }
        if let bound, pass.depth > bound {
            // Still too deep: place again in the envelope, moving what passes the bound to the table.
            pass = PlacementPass(archive: archive, view: view, numbers: numbers, accounts: false, envelope: true)
            pass.place(bound: bound)
            try ConversionDeadline.check()
            guard pass.depth <= bound else {
                let fits = Self.smallestFittingBound(archive: archive, view: view, numbers: numbers, above: bound, atMost: pass.minimumBound)
                try ConversionDeadline.check()
                throw CodecError(
                    .depthBoundTooSmall,
                    "a nesting bound of \(bound) is too small for this archive: with its deepest objects moved to the top-level $table it still nests \(pass.depth) levels",
                    found: fits, limit: bound, remedy: .nestingBound(fits))
            }
        }
        bodyHolder = pass.bodyHolder
        carriesID = pass.carriesID
        writtenIDs = pass.writtenIDs
        table = pass.table
        depth = pass.depth
        envelope = pass.envelope
        self.numbers = numbers
        accounts = pass.accounts
    }

    /// A placement made without the breadth-first pass, for writing bodies one at a time
    /// where no answer may depend on where a body with `$id` stands (`KeyedValueAtPath`'s
    /// unplaced walk): no body is placed, so the writer writes every reference to an entry
    /// with `$id` as `{"$ref": uid + 1}` and such a body, written on its own, with `"$id":
    /// uid + 1` — numbers that name the entry, not the whole document's. Tied scalars keep
    /// their provisional `$id` (`ScalarIdentity`, "Ties"). `depth` is unknown (0): a caller
    /// measures what it writes (`BodyScanner`).
    static func unplaced(archive: KeyedArchive, numbers: NumberWrapping) -> Placement {
        let count = archive.objectCount
        return Placement(
            bodyHolder: Array(filledWith: Placement.unplaced, count: count), carriesID: archive.carriesID, table: [], depth: 0,
            writtenIDs: [UInt32](count: count, placeholder: 0) { ids in
                for uid in 0..<count { ids[uid] = UInt32(truncatingIfNeeded: uid &+ 1) }
            }, envelope: !archive.isPlainRoot, numbers: numbers, accounts: true)
    }

    /// No placement: empty tables, held by a writer that is not writing (`ReadableWriter.place(by:)`).
    static let none = Placement(bodyHolder: [], carriesID: [], table: [], depth: 0, writtenIDs: [], envelope: false, numbers: .nonFinite, accounts: true)

    /// What `pass` has placed so far (`GrowingPlacement`), with the entries by number.
    fileprivate init(of pass: PlacementPass, numbers: NumberWrapping) {
        self.init(
            bodyHolder: pass.bodyHolder, carriesID: pass.carriesID, table: pass.table, depth: pass.depth, writtenIDs: pass.writtenIDs,
            envelope: pass.envelope, numbers: numbers, accounts: pass.accounts)
        entriesByID = pass.numberedEntries
    }

    private init(
        bodyHolder: [UInt32], carriesID: [Bool], table: [Int32], depth: Int, writtenIDs: [UInt32], envelope: Bool, numbers: NumberWrapping, accounts: Bool
    ) {
        self.bodyHolder = bodyHolder
        self.carriesID = carriesID
        self.table = table
        self.depth = depth
        self.writtenIDs = writtenIDs
        self.envelope = envelope
        self.numbers = numbers
        self.accounts = accounts
    }

    /// The smallest bound above `refused` that the archive fits (`known` fits by construction:
    /// every body fits in the table under it); tried upwards, at most eight passes.
    private static func smallestFittingBound(archive: KeyedArchive, view: BinaryPlistView, numbers: NumberWrapping, above refused: Int, atMost known: Int) -> Int {
        var bound = refused + 1
        while bound < known, bound <= refused + 8 {
            var pass = PlacementPass(archive: archive, view: view, numbers: numbers, accounts: false, envelope: true)
            pass.place(bound: bound)
            if pass.depth <= bound { return bound }
            bound += 1
        }
        return known
    }

    /// The number the readable view writes for entry `uid` in its `$id` and in every `$ref` to
    /// it (only for entries with `carriesID`).
    func writtenID(of uid: Int) -> Int { Int(writtenIDs[uid]) }
}

/// The breadth-first pass behind `Placement`. Bodies are scanned (`BodyScanner`) in queue
/// order and their references placed in document order: the first reference to reach an
/// unplaced entry holds its body. Scanning only reads the archive, so without a bound a wide
/// part of the queue is scanned on several threads at once (`parallelism`) and placed after,
/// in the same order: the result is the same for every width. With a bound, a body's height
/// decides before its references are placed whether it moves to the table.
private struct PlacementPass {
    var bodyHolder: [UInt32] = []
    var carriesID: [Bool]
    var writtenIDs: [UInt32]
    var table: [Int32] = []
    var depth = 0
    /// A bound every entry's body fits under in the table, with the envelope.
    var minimumBound = 0
    let envelope: Bool
    let accounts: Bool
    /// How many queued bodies the pass scans before it stops (`GrowingPlacement`), whether it
    /// got through the queue, and where it goes on (−1: before the top body).
    var bodyBudget = Int.max
    private(set) var complete = true
    private var nextBody = -1
    /// The entries in the order they were numbered, when kept (`GrowingPlacement`).
    var numberedEntries: [Int32]?

    private var scanner: BodyScanner
    private let objectCount: Int
    /// `KeyedArchive.tieGroups`, and the groups whose bare entry is chosen (by group UID).
    private let tieGroups: [Int32]
    private var settledTies = Set<Int32>()
    /// The last number given in `writtenIDs`.
    private var lastID: UInt32 = 0

    /// The body whose references are being placed: its entry, the brackets open around it,
    /// and the deepest its text reaches (relative), its children's own bodies aside.
    private var body: UInt32 = 0
    private var bodyLevel = 0
    private var bodyHeight = 0

    /// During `place`: `bodyHolder`, and the breadth-first queue (entry, brackets open around its
    /// body). Every non-scalar entry is queued at most once (`bodyHolder` marks it placed), so
    /// `objectCount` slots hold any queue.
    private var bodyHolderSlots = UnsafeMutableBufferPointer<UInt32>(start: nil, count: 0)
    private var queue = UnsafeMutableBufferPointer<(uid: Int32, level: Int32)>(start: nil, count: 0)
    private var queued = 0

    init(archive: borrowing KeyedArchive, view: BinaryPlistView, numbers: NumberWrapping, accounts: Bool, envelope: Bool) {
        scanner = BodyScanner(archive: copy archive, view: view, numbers: numbers, accounts: accounts)
        objectCount = archive.objectCount
        self.envelope = envelope
        self.accounts = accounts
        carriesID = archive.carriesID
        tieGroups = archive.tieGroups
        writtenIDs = []
    }

    /// Gives entry `uid` the next `$id` number.
    @inline(__always)
    private mutating func number(_ uid: Int) {
        lastID += 1
        writtenIDs[uid] = lastID
        numberedEntries?.append(Int32(truncatingIfNeeded: uid))
    }

    // MARK: Breadth-first pass

    mutating func place(bound: Int?, parallelism: Parallelism = .serial) {
        start()
        advance(bound: bound, parallelism: parallelism)
        finish()
    }

    /// Sets the pass up to `advance`, from the top body; `finish` frees the queue.
    mutating func start() {
        let count = objectCount
        table = []
        writtenIDs = [UInt32](filledWith: 0, count: count)
        carriesID = scanner.archive.carriesID
        settledTies.removeAll()
        lastID = 0
        complete = true
        nextBody = -1
        queue = .allocate(capacity: count + 1)
        queued = 0
        bodyHolder = [UInt32](filledWith: Placement.unplaced, count: count)
    }

    mutating func finish() {
        queue.deallocate()
        queue = UnsafeMutableBufferPointer(start: nil, count: 0)
    }

    /// Goes on up to `bodyBudget` queued bodies (or the end of the queue).
    mutating func advance(bound: Int?, parallelism: Parallelism = .serial) {
        var holder = bodyHolder
        bodyHolder = []
        holder.withUnsafeMutableBufferPointer { buffer in
            bodyHolderSlots = buffer
            run(bound: bound, parallelism: parallelism)
            bodyHolderSlots = UnsafeMutableBufferPointer(start: nil, count: 0)
        }
        bodyHolder = holder
    }

    private mutating func run(bound: Int?, parallelism: Parallelism) {
        if nextBody < 0 {
            begin(body: Placement.topBody, level: 0)
            scanner.slots.removeAll(keepingCapacity: true)
            bodyHeight = scanner.scanTop(envelope: envelope)
            placeSlots(scanner.slots[...])
            minimumBound = max(depth, 3)
            nextBody = 0
        }
        // Bodies worth a job of their own (each holds a few references or more).
        let smallestPart = max(1, parallelism.smallestPart >> 4)
        var next = nextBody
        defer { nextBody = next }
        while next < queued {
            guard next < bodyBudget else {
                complete = false
                return
            }
            let end = min(queued, bodyBudget)
            if bound == nil, parallelism.width >= 2, end - next >= 2 * smallestPart {
                placeScannedInParallel(next..<end, parallelism: parallelism, smallestPart: smallestPart)
                next = end
                continue
            }
            for index in next..<end {
                // Unfinished when it stops: `Placement.init` checks the deadline after each pass.
                if ConversionDeadline.shouldStop(index) {
                    next = index
                    complete = false
                    return
                }
                let (uid32, natural) = queue[index]
                let uid = Int(uid32)
                begin(body: UInt32(truncatingIfNeeded: uid), level: Int(natural))
                let carriesID = carriesID[uid]
                scanner.slots.removeAll(keepingCapacity: true)
                var own = scanner.scan(uid, carriesID: carriesID)
                if let bound {
                    own = boundBody(uid, carriesID: carriesID, own: own, bound: bound)
                }
                bodyHeight = own
                placeSlots(scanner.slots[...])
            }
            next = end
        }
        complete = true
    }

    /// With a bound: moves the body to the table if its height at its natural level passes
    /// the bound (rescanning it when `$id` gives it a wrapper); returns its own height.
    private mutating func boundBody(_ uid: Int, carriesID hasID: Bool, own: Int, bound: Int) -> Int {
        // Every reference counted as the most it can be there: `{"$ref": n}`, or a shared
        // scalar's own body (an upper bound when that body stands elsewhere).
        var height = own
        for slot in scanner.slots {
            let child = Int(slot.uid)
            let form = scanner.archive.forms[child]
            let leaf = form.isScalar ? scanner.scalarLeafHeight(child, form: form, carriesID: true, keyContext: slot.keyContext) : 1
            height = max(height, Int(slot.level) + leaf)
        }
        let wraps = !hasID && scanner.wrapsWhenCarryingID(uid)
        minimumBound = max(minimumBound, 2 + height + (wraps ? 1 : 0))
        guard bodyLevel > 2, bodyLevel + height > bound else { return own }
        carriesID[uid] = true
        if writtenIDs[uid] == 0 { number(uid) }
        bodyHolderSlots[uid] = Placement.inTable
        table.append(Int32(truncatingIfNeeded: uid))
        bodyLevel = 2
        guard wraps else { return own }
        scanner.slots.removeAll(keepingCapacity: true)
        return scanner.scan(uid, carriesID: true)
    }

    /// Scans the bodies queued in `range` as jobs of `parallelism`, then places their
    /// references in queue order, as the serial pass would.
    private mutating func placeScannedInParallel(_ range: Range<Int>, parallelism: Parallelism, smallestPart: Int) {
        let parts = max(1, min(parallelism.width, range.count / smallestPart))
        let ranges = Cuts((0...parts).map { range.lowerBound + range.count * $0 / parts })
        let (template, carriesID, queue) = (scanner, carriesID, queue)
        let scans = parallelism.map(ranges) { part -> (owns: [Int32], ends: [Int32], slots: [BodyScanner.Slot]) in
            var scanner = template
            scanner.slots = []
            var owns: [Int32] = []
            var ends: [Int32] = []
            owns.reserveCapacity(part.count)
            ends.reserveCapacity(part.count)
            for index in part {
                let uid = Int(queue[index].uid)
                owns.append(Int32(truncatingIfNeeded: scanner.scan(uid, carriesID: carriesID[uid])))
                ends.append(Int32(truncatingIfNeeded: scanner.slots.count))
            }
            return (owns, ends, scanner.slots)
        }
        for (number, scan) in scans.enumerated() {
            let part = ranges[number]
            var start = 0
            for (offset, index) in part.enumerated() {
                let (uid32, natural) = queue[index]
                begin(body: UInt32(truncatingIfNeeded: uid32), level: Int(natural))
                bodyHeight = Int(scan.owns[offset])
                let end = Int(scan.ends[offset])
                placeSlots(scan.slots[start..<end])
                start = end
            }
        }
    }

    @inline(__always)
    private mutating func begin(body: UInt32, level: Int) {
        self.body = body
        bodyLevel = level
        bodyHeight = 0
    }

    /// Places the references of the current body, then notes the nesting it reaches.
    private mutating func placeSlots(_ slots: ArraySlice<BodyScanner.Slot>) {
        for slot in slots { placeChild(slot) }
        depth = max(depth, bodyLevel + bodyHeight)
    }

    /// The first reference to reach an unplaced entry holds its body (queued, or written here
    /// for a scalar with `$id`, the only scalars with slots besides tied ones) and gives it its
    /// `$id` number; the first of a tie group reached is written bare (`ScalarIdentity`).
    /// Counts what the reference writes here into `bodyHeight`.
    @inline(__always)
    private mutating func placeChild(_ slot: BodyScanner.Slot) {
        let uid = Int(slot.uid)
        let form = scanner.archive.forms[uid]
        var leaf = 1  // {"$ref": n}, or a non-scalar body's first bracket
        if form.isScalar {
            var first = false
            if bodyHolderSlots[uid] == Placement.unplaced {
                bodyHolderSlots[uid] = body
                first = true
                if !tieGroups.isEmpty, tieGroups[uid] >= 0, settledTies.insert(tieGroups[uid]).inserted {
                    carriesID[uid] = false
                } else {
                    number(uid)
                }
            }
            if !carriesID[uid] {
                leaf = scanner.scalarLeafHeight(uid, form: form, carriesID: false, keyContext: slot.keyContext)
            } else if first {
                leaf = scanner.scalarLeafHeight(uid, form: form, carriesID: true, keyContext: slot.keyContext)
            }
        } else if bodyHolderSlots[uid] == Placement.unplaced, queued < queue.count {
            // With `$id` or not, a body is placed once (an entry without `$id` has one
            // reference); every later reference is `{"$ref": n}`.
            bodyHolderSlots[uid] = body
            if carriesID[uid] { number(uid) }
            queue[queued] = (slot.uid, Int32(truncatingIfNeeded: bodyLevel + Int(slot.level)))
            queued += 1
        }
        bodyHeight = max(bodyHeight, Int(slot.level) + leaf)
    }
}

/// The breadth-first pass of `Placement` run part way and taken further on demand: what it has
/// placed is final (the first reference to reach an entry holds its body and gives it its
/// number; the first of a tie group reached is the bare one), so a reader that meets only
/// entries it has reached reads what the whole placement says. An entry it has not reached
/// has `bodyHolder` `unplaced` and number 0 (a tied scalar among them still carries `$id`),
/// which a writer writes as `{"$ref": 0}` or `"$id": 0` (`KeyedValueAtPath`, "Partly
/// placed"). Without a bound; `depth` is what the pass has reached, not the document's.
final class GrowingPlacement {
    private var pass: PlacementPass
    private let numbers: NumberWrapping
    /// Whether the pass has placed the whole document (not before the first placement).
    private(set) var complete = false

    init(archive: borrowing KeyedArchive, view: BinaryPlistView, numbers: NumberWrapping) {
        pass = PlacementPass(archive: archive, view: view, numbers: numbers, accounts: true, envelope: !archive.isPlainRoot)
        self.numbers = numbers
        pass.numberedEntries = []
        pass.bodyBudget = 0
        pass.start()
    }

    deinit { pass.finish() }

    /// The placement once the pass has scanned its first `bodies` queued bodies (or all), its
    /// scans split as `parallelism` allows.
    func placement(scanning bodies: Int, parallelism: Parallelism) throws(CodecError) -> Placement {
        pass.bodyBudget = bodies
        pass.advance(bound: nil, parallelism: parallelism)
        try ConversionDeadline.check()
        complete = pass.complete
        return Placement(of: pass, numbers: numbers)
    }
}
