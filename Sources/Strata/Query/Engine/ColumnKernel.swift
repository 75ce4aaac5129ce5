/// A comparison on a column's bytes (nil: null) that a scan loop inlines: nil when the bytes are
/// damaged. `ColumnPredicate` is the general one; the common operand types have their own, so that
/// the loop over a batch of rows holds one load and one compare, not the predicate's switch.
protocol ColumnTestKernel {
    func evaluate(_ bytes: UnsafeRawBufferPointer?) -> Bool?
}

extension ColumnPredicate: ColumnTestKernel {}

/// A comparison with a `Double` (and any column `ColumnOrder` reads as one). It and `Int64ColumnTest`
/// are two types, not one generic over the number: the generic one measured slower in R4's loop
/// (46.8 against 38.8 ms for 1M rows).
struct DoubleColumnTest: ColumnTestKernel {
    let value: Double
    let `operator`: ComparisonOperator
    let nullOutcome: Bool

    @inline(__always)
    func evaluate(_ bytes: UnsafeRawBufferPointer?) -> Bool? {
        guard let bytes else { return nullOutcome }
        guard bytes.count == 8 else { return nil }
        return `operator`.holds(ColumnOrder.order(Double(bitPattern: bytes.loadUnaligned(as: UInt64.self)), value))
    }
}

/// A comparison with a 64-bit signed integer (`Int`, `Int64`).
struct Int64ColumnTest: ColumnTestKernel {
    let value: Int64
    let `operator`: ComparisonOperator
    let nullOutcome: Bool

    @inline(__always)
    func evaluate(_ bytes: UnsafeRawBufferPointer?) -> Bool? {
        guard let bytes else { return nullOutcome }
        guard bytes.count == 8 else { return nil }
        return `operator`.holds(ColumnOrder.order(Int64(littleEndian: bytes.loadUnaligned(as: Int64.self)), value))
    }
}

/// A string match (`TextPredicate`).
struct TextColumnTest: ColumnTestKernel {
    let match: TextPredicate
    let nullOutcome: Bool

    @inline(__always)
    func evaluate(_ bytes: UnsafeRawBufferPointer?) -> Bool? {
        guard let bytes else { return nullOutcome }
        return match.evaluate(bytes)
    }
}

/// A loop over the rows of a table that a `ColumnTestKernel` specialises (`ColumnPredicate.run`).
protocol ColumnKernelLoop {
    associatedtype Output
    func run<Test: ColumnTestKernel>(_ test: Test) throws(StoreError) -> Output
}

extension ColumnPredicate {
    /// Runs `loop` with this comparison's specialised test (`self` for the operand types that have
    /// none).
    func run<Loop: ColumnKernelLoop>(_ loop: Loop) throws(StoreError) -> Loop.Output {
        switch operand {
        case .double(let value):
            try loop.run(DoubleColumnTest(value: value, operator: `operator`, nullOutcome: nullOutcome))
        case .signed(8, let value):
            try loop.run(Int64ColumnTest(value: value, operator: `operator`, nullOutcome: nullOutcome))
        case .text(let match):
            try loop.run(TextColumnTest(match: match, nullOutcome: nullOutcome))
        default:
            try loop.run(self)
        }
    }
}

/// A test that passes every row: a walk without a condition.
struct EveryRow: ColumnTestKernel {
    @inline(__always)
    func evaluate(_ bytes: UnsafeRawBufferPointer?) -> Bool? { true }
}

/// The loops over a table's rows, a batch at a time, that read one column of each: for every row,
/// or for one comparison on the row's own column, specialised for its operand type
/// (`ColumnTestKernel`) and for what is done with each value (`ColumnValueSink`). Not generic over a
/// model type, so that its generic methods specialise for a caller's concrete sink.
struct ColumnScanner {
    enum Condition {
        case everyRow
        case column(Int, ColumnPredicate)
    }

    let binding: TableBinding
    let reader: RowReader
    let condition: Condition

    /// The number of rows that satisfy the condition; a large table's key ranges are counted at once
    /// (`ScanSplit`).
    ///
    /// - Throws: `.corrupted` naming the row and column when a column is damaged, `.storage`.
    func count() throws(StoreError) -> Int {
        guard let split = ScanSplit(binding, reader: reader) else { return try count(in: .whole) }
        return try split.run { (_, part) throws(StoreError) in try count(in: part) }.reduce(0, +)
    }

    private func count(in part: ScanPart) throws(StoreError) -> Int {
        switch condition {
        case .everyRow: try reader.count(binding, where: 0, passes: EveryRow(), in: part)
        case .column(let column, let predicate):
            try predicate.run(Counting(scanner: self, column: column, part: part))
        }
    }

    /// Gives `sink` each row that satisfies the condition, in key order. For a sink that merges
    /// (`ScannedRowSink.splits`), a large table's key ranges are read at once, each into its own
    /// sink (`ScanSplit`).
    ///
    /// - Throws: `.corrupted` naming the row and column when a column is damaged, `.storage`, or what
    ///   the sink throws.
    func scan<Sink: ScannedRowSink>(into sink: Sink) throws(StoreError) -> Sink {
        guard Sink.splits, let split = ScanSplit(binding, reader: reader) else {
            return try scan(into: sink, in: .whole)
        }
        let parts = try split.run { (index, part) throws(StoreError) in try scan(into: sink.part(index), in: part) }
        var merged = parts[0]
        for later in parts.dropFirst() { merged.merge(later) }
        return merged
    }

    private func scan<Sink: ScannedRowSink>(into sink: Sink, in part: ScanPart) throws(StoreError) -> Sink {
        switch condition {
        case .everyRow: try reader.forEachMatch(binding, where: -1, passes: EveryRow(), into: sink, in: part)
        case .column(let tested, let predicate):
            try predicate.run(Scanning(scanner: self, tested: tested, sink: sink, part: part))
        }
    }

    /// Gives `sink` the value of `column` of each row that satisfies the condition, in key order.
    ///
    /// - Throws: `.corrupted` naming the row and column when a column is damaged or the sink refuses
    ///   a value, `.storage`.
    @inline(__always)
    func values<Sink: ColumnValueSink>(of column: Int, into sink: Sink) throws(StoreError) -> Sink {
        try scan(into: ColumnValueReader(column: column, binding: binding, sink: sink)).sink
    }

    /// The rows that satisfy the condition, with their keys, in key order.
    ///
    /// - Throws: `.corrupted` naming a damaged row or key, `.storage`.
    func rows() throws(StoreError) -> [(key: RowKey, row: RowView)] {
        try scan(into: MatchingRows(binding: binding, reader: reader)).rows
    }

    private struct Counting: ColumnKernelLoop {
        let scanner: ColumnScanner
        let column: Int
        let part: ScanPart

        func run<Test: ColumnTestKernel>(_ test: Test) throws(StoreError) -> Int {
            try scanner.reader.count(scanner.binding, where: column, passes: test, in: part)
        }
    }

    private struct Scanning<Sink: ScannedRowSink>: ColumnKernelLoop {
        let scanner: ColumnScanner
        let tested: Int
        let sink: Sink
        let part: ScanPart

        func run<Test: ColumnTestKernel>(_ test: Test) throws(StoreError) -> Sink {
            try scanner.reader.forEachMatch(scanner.binding, where: tested, passes: test, into: sink, in: part)
        }
    }
}

/// A sink of a walk that may be split into key ranges read at once (`ScanSplit`), each into its own
/// `part(_:)`, merged in key order. Only for a sink that keeps nothing pointing into the file and
/// whose merged result is the one a single walk gives (a `Double` sum's up to its last bits); other
/// sinks keep the defaults (not split).
protocol SplittableSink {
    static var splits: Bool { get }
    /// An empty sink for the key range `index` of a split walk.
    func part(_ index: Int) -> Self
    /// Adds what the sink of the next key range took.
    mutating func merge(_ later: Self)
}

extension SplittableSink {
    static var splits: Bool { false }
    func part(_ index: Int) -> Self { self }
    mutating func merge(_ later: Self) { preconditionFailure("\(Self.self) is not read in parts") }
}

/// What a scan does with each row it keeps (`RowReader.forEachMatch`): specialised like the tests,
/// so that the loop holds no closure call.
protocol ScannedRowSink: SplittableSink {
    /// Takes a row (its header checked) and what names it.
    ///
    /// - Throws: `.corrupted` when what it reads of the row is damaged.
    mutating func take(_ row: UnsafeRawBufferPointer, of identity: RowIdentity) throws(StoreError)
}

/// Hands a `ColumnValueSink` one column of each row.
struct ColumnValueReader<Sink: ColumnValueSink>: ScannedRowSink {
    let locator: ColumnLocator
    let binding: TableBinding
    var sink: Sink

    init(column: Int, binding: TableBinding, sink: Sink) {
        locator = ColumnLocator(column: column, columns: binding.columnCount)
        self.binding = binding
        self.sink = sink
    }

    @inline(__always)
    mutating func take(_ row: UnsafeRawBufferPointer, of identity: RowIdentity) throws(StoreError) {
        let taken: Bool
        do throws(RowDamage) {
            taken = sink.take(try locator.bytes(in: row), of: identity)
        } catch {
            throw RowReader.damage(error, column: locator.column, identity: identity, binding: binding)
        }
        guard taken else { throw BoundEvaluator.undecodable(locator.column, identity, binding) }
    }

    static var splits: Bool { Sink.splits }

    func part(_ index: Int) -> Self {
        var part = self
        part.sink = sink.part(index)
        return part
    }

    mutating func merge(_ later: Self) { sink.merge(later.sink) }
}

/// The rows with their decoded keys: what a Results keeps of its matches. Not split (`ScanSplit`):
/// its rows point into the file, which a helper's transaction may not outlive, and collecting 1M
/// rows on two threads showed no gain above the noise (R4o 69.8–83 ms split, 76–79 ms not).
struct MatchingRows: ScannedRowSink {
    let binding: TableBinding
    let reader: RowReader
    var rows: [(key: RowKey, row: RowView)] = []

    @inline(__always)
    mutating func take(_ row: UnsafeRawBufferPointer, of identity: RowIdentity) throws(StoreError) {
        let key: RowKey =
            switch identity {
            case .key(let key): key
            case .stored(let bytes): try reader.decodeRowKey(bytes, binding: binding)
            }
        rows.append((key, RowView(encoded: row, columns: binding.columnCount)))
    }
}

extension RowReader {
    /// Gives `sink` each row whose column `tested` passes `test` (every row for `EveryRow`, which
    /// reads no column), in key order, a batch of rows at a time.
    ///
    /// - Throws: `.corrupted` naming the row and column when a column is damaged, `.storage`, or what
    ///   the sink throws.
    @inline(__always)
    func forEachMatch<Test: ColumnTestKernel, Sink: ScannedRowSink>(
        _ binding: TableBinding, where tested: Int, passes test: Test, into sink: Sink, in part: ScanPart = .whole
    ) throws(StoreError) -> Sink {
        let testedColumn = ColumnLocator(column: max(tested, 0), columns: binding.columnCount)
        var sink = sink
        try forEachRowBatch(binding, in: part) { (batch) throws(StoreError) -> Bool in
            for index in 0..<batch.count {
                let row = batch.row(index)
                if Test.self != EveryRow.self {
                    guard try Self.passes(test, testedColumn, row: row, key: batch.key(index), binding: binding)
                    else { continue }
                }
                try sink.take(row, of: .stored(batch.key(index)))
            }
            return true
        }
        return sink
    }

    /// The number of rows whose column `tested` passes `test`, a batch of rows at a time.
    ///
    /// - Throws: `.corrupted` naming the row and column when a column is damaged, `.storage`.
    func count<Test: ColumnTestKernel>(
        _ binding: TableBinding, where tested: Int, passes test: Test, in part: ScanPart = .whole
    ) throws(StoreError) -> Int {
        let locator = ColumnLocator(column: tested, columns: binding.columnCount)
        var count = 0
        try forEachRowBatch(binding, in: part) { (batch) throws(StoreError) -> Bool in
            guard Test.self != EveryRow.self else {
                count &+= batch.count
                return true
            }
            for index in 0..<batch.count {
                let passes = try Self.passes(
                    test, locator, row: batch.row(index), key: batch.key(index), binding: binding)
                count &+= passes ? 1 : 0
            }
            return true
        }
        return count
    }

    /// Whether the tested column of `row` (stored under `key`) passes `test`.
    ///
    /// - Throws: `.corrupted` naming the row and column when the column is damaged or undecodable.
    @inline(__always)
    private static func passes<Test: ColumnTestKernel>(
        _ test: Test, _ tested: ColumnLocator, row: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer,
        binding: TableBinding
    ) throws(StoreError) -> Bool {
        let outcome: Bool?
        do throws(RowDamage) {
            outcome = test.evaluate(try tested.bytes(in: row))
        } catch {
            throw damage(error, column: tested.column, key: key, binding: binding)
        }
        guard let outcome else { throw BoundEvaluator.undecodable(tested.column, .stored(key), binding) }
        return outcome
    }

    @inline(never)
    static func damage(_ damage: RowDamage, column: Int, key: UnsafeRawBufferPointer, binding: TableBinding)
        -> StoreError
    {
        Self.damage(damage, column: column, identity: .stored(key), binding: binding)
    }

    @inline(never)
    static func damage(_ damage: RowDamage, column: Int, identity: RowIdentity, binding: TableBinding) -> StoreError {
        .damaged(at: binding.location(of: identity.key(in: binding), column: column), damage)
    }
}

/// What a scan does with the value of one column of each row it reads (`ColumnScanner.values`):
/// specialised like the tests, so that the loop holds no closure call.
protocol ColumnValueSink: SplittableSink {
    /// Takes the value's bytes (nil: null) of the row `row` names; false when they are not a value
    /// of the column's type.
    mutating func take(_ bytes: UnsafeRawBufferPointer?, of row: RowIdentity) -> Bool
}

/// The sum of a `Double` column (nulls skipped). Split walks add the ranges' sums, so the last bits
/// of a large table's sum may differ from adding the values one by one in key order.
struct DoubleSum: ColumnValueSink {
    var total = 0.0

    static var splits: Bool { true }
    func part(_ index: Int) -> Self { DoubleSum() }
    mutating func merge(_ later: Self) { total += later.total }

    @inline(__always)
    mutating func take(_ bytes: UnsafeRawBufferPointer?, of row: RowIdentity) -> Bool {
        guard let bytes else { return true }
        guard bytes.count == 8 else { return false }
        total += Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self)))
        return true
    }
}

/// The sum of a signed integer column of `width` bytes (nulls skipped), trapping on overflow as
/// Swift's `+` does.
struct SignedSum: ColumnValueSink {
    let width: Int
    var total: Int64 = 0

    static var splits: Bool { true }
    func part(_ index: Int) -> Self { SignedSum(width: width) }
    mutating func merge(_ later: Self) { total += later.total }

    @inline(__always)
    mutating func take(_ bytes: UnsafeRawBufferPointer?, of row: RowIdentity) -> Bool {
        guard let bytes else { return true }
        guard bytes.count == width else { return false }
        total += ColumnOrder.signedValue(bytes, width: width)
        return true
    }
}

/// The values of a non-optional `Double` column, in order.
struct DoubleValues: ColumnValueSink {
    var values: [Double] = []

    static var splits: Bool { true }
    func part(_ index: Int) -> Self { DoubleValues() }
    mutating func merge(_ later: Self) { values += later.values }

    @inline(__always)
    mutating func take(_ bytes: UnsafeRawBufferPointer?, of row: RowIdentity) -> Bool {
        guard let bytes, bytes.count == 8 else { return false }
        values.append(Double(bitPattern: UInt64(littleEndian: bytes.loadUnaligned(as: UInt64.self))))
        return true
    }
}

/// Each value handed to a closure (the decoding paths, which call a witness per value anyway).
struct VisitingSink: ColumnValueSink {
    let visit: (UnsafeRawBufferPointer?) -> Void

    mutating func take(_ bytes: UnsafeRawBufferPointer?, of row: RowIdentity) -> Bool {
        visit(bytes)
        return true
    }
}
