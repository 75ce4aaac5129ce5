/// A stored property reached from a query's root type, maybe through to-one links
/// (`owner.name`: the link `owner` of the root, then `name` of the linked type).
struct PropertyPath: CustomStringConvertible, Equatable {
    struct Step: Equatable {
        /// The type the property belongs to.
        let schema: ObjectSchema
        /// Its index in `schema.properties`.
        let property: Int

        static func == (lhs: Step, rhs: Step) -> Bool {
            lhs.schema === rhs.schema && lhs.property == rhs.property
        }
    }

    var steps: [Step] = []
    /// Whether the path ends in a collection's `count` (a List's, a MutableSet's, a Map's) rather
    /// than the property's value.
    var countsList = false
    /// For `map["key"]`: the comparison tests the Map's value under this key (nil: absent or null).
    var mapKey: String?

    /// `test` on the value the Map column holds under `mapKey` (nil when absent or null); nil for a
    /// Map whose bytes are damaged (`.corrupted`).
    static func testing(valueUnder mapKey: String, _ test: @escaping ColumnTest) -> ColumnTest {
        let key = Array(mapKey.utf8)
        return { bytes in
            guard let bytes, let found = MapFormat.lookUp(key, in: bytes) else { return nil }
            return test(found.value)
        }
    }

    func appending(_ schema: ObjectSchema, _ property: Int) -> PropertyPath {
        var path = self
        path.steps.append(Step(schema: schema, property: property))
        return path
    }

    /// A property of the root type itself (what an index or the primary key can serve).
    var directProperty: Int? {
        steps.count == 1 && !countsList && mapKey == nil ? steps[0].property : nil
    }

    /// The properties of the root type itself `paths` name; nil when one goes through a link.
    static func directProperties(_ paths: [PropertyPath]) -> [Int]? {
        var properties: [Int] = []
        for path in paths {
            guard let property = path.directProperty else { return nil }
            properties.append(property)
        }
        return properties
    }

    var description: String {
        let names = steps.map { $0.schema.properties[$0.property].name }.joined(separator: ".")
        if let mapKey { return names + "[\"\(mapKey)\"]" }
        return countsList ? names + ".count" : names
    }
}

/// A value of a query, as the bytes of the column it would be stored in (nil: null).
struct Operand {
    let bytes: [UInt8]?

    /// Encodes `value` as a column; nil when it cannot be encoded.
    init?<V: _Persistable>(_ value: V) {
        var encoder = _RowEncoder()
        encoder.beginRow(columns: 1)
        do throws(StoreError) {
            try value._strataEncodeColumn(into: &encoder)
        } catch {
            return nil
        }
        let column = encoder.withRow { bytes in
            // The row was encoded just now: reading it back cannot fail.
            try? RowView(encoded: bytes, columns: 1).column(0).map { Array($0) }
        }
        guard let column else { return nil }
        bytes = column
    }

    init(bytes: [UInt8]?) {
        self.bytes = bytes
    }
}

/// How an index or the primary key could find the rows a comparison can match: a superset of them
/// (every candidate is tested again), so bounds are inclusive.
enum IndexAccess {
    case equal(Operand)
    case oneOf([Operand])
    /// Non-null bounds; nil: unbounded.
    case range(lower: Operand?, upper: Operand?)
}

/// What a comparison tests, as data rather than a compiled test: what sync hands its server to
/// evaluate the same condition there (`Results.syncCondition()`).
struct ComparisonForm {
    enum Operand {
        /// A value as its column's bytes (nil: nil).
        case column([UInt8]?)
        /// `IN`: any of these.
        case columns([[UInt8]?])
        /// The text of a string match (`BEGINSWITH`, `CONTAINS`, `LIKE`…).
        case text(String)
    }

    let `operator`: QueryOperator
    let operand: Operand
    let options: QueryStringOptions
}

/// One test of a property: the leaf of a predicate.
final class Comparison {  // a class: evaluating a predicate per row copies no fields
    let path: PropertyPath
    /// The test as data, when it is a plain comparison of the property with values (set by the
    /// comparison's maker; nil for tests only code can express).
    var form: ComparisonForm?
    /// Tests the column's bytes (nil: null). Returns nil when the bytes cannot be decoded.
    let test: (UnsafeRawBufferPointer?) -> Bool?
    let access: IndexAccess?
    let text: String
    /// The same test compiled for the column's bytes, when the value's type allows
    /// (`ColumnPredicate`): what a scan evaluates on a property of the row itself.
    let columnPredicate: ColumnPredicate?
    /// A full-text condition (`TEXT`, `matches(_:)`): what the property's full-text index can answer.
    var fullText: FullTextCondition?

    init(
        path: PropertyPath, test: @escaping (UnsafeRawBufferPointer?) -> Bool?, access: IndexAccess?, text: String,
        columnPredicate: ColumnPredicate? = nil
    ) {
        self.path = path
        self.test = test
        self.access = access
        self.text = text
        self.columnPredicate = columnPredicate
    }
}

/// A condition on the objects of one type, from `where`.
indirect enum Predicate: CustomStringConvertible {
    case comparison(Comparison)
    /// A condition on the elements of a List or MutableSet.
    case collection(CollectionCondition)
    /// Always (`TRUEPREDICATE`) or never (`FALSEPREDICATE`).
    case constant(Bool)
    case and(Predicate, Predicate)
    case or(Predicate, Predicate)
    case not(Predicate)

    var description: String {
        switch self {
        case .comparison(let comparison): comparison.text
        case .collection(let condition): condition.text
        case .constant(let value): value ? "TRUEPREDICATE" : "FALSEPREDICATE"
        case .and(let lhs, let rhs): "(\(lhs) && \(rhs))"
        case .or(let lhs, let rhs): "(\(lhs) || \(rhs))"
        case .not(let inner): "!(\(inner))"
        }
    }

    /// The comparisons that must all hold (the top-level conjunction).
    var conjuncts: [Predicate] {
        if case .and(let lhs, let rhs) = self { return lhs.conjuncts + rhs.conjuncts }
        return [self]
    }
}

// MARK: Evaluation

/// The key of a row a predicate tests: decoded only when needed, to name the row in an error (a scan
/// that counts decodes no key).
enum RowIdentity {
    case key(RowKey)
    /// The key's stored bytes.
    case stored(UnsafeRawBufferPointer)

    /// A copy of the key's stored bytes (what a walk keeps of a row it returns to later).
    var storedBytes: [UInt8] {
        switch self {
        case .stored(let bytes): Array(bytes)
        case .key(let key): key.withBytes { Array($0) }
        }
    }

    func key(in binding: TableBinding) -> RowKey {
        switch self {
        case .key(let key): return key
        case .stored(let bytes): return (try? RowKey(stored: bytes, kind: binding.keyKind)) ?? .bytes(Array(bytes))
        }
    }
}

extension RowView {
    /// The bytes of `column` (nil: null) of the row `identity` names in `binding`.
    ///
    /// - Throws: `.corrupted` naming the object and property when the column's offsets are damaged.
    @inline(__always)
    func column(_ column: Int, of identity: RowIdentity, in binding: TableBinding) throws(StoreError)
        -> UnsafeRawBufferPointer?
    {
        do {
            return try self.column(column)
        } catch {
            throw .damaged(at: binding.location(of: identity.key(in: binding), column: column), error)
        }
    }
}

/// Evaluates predicates on rows, following links through the rows it reads.
struct PredicateEvaluator {
    let rows: RowReader

    /// Whether the row `identity` names in `binding` satisfies `predicate`.
    ///
    /// - Throws: `.corrupted` when a column it reads is damaged, `.storage`.
    func matches(_ predicate: Predicate, row: RowView, binding: TableBinding, key identity: RowIdentity)
        throws(StoreError) -> Bool
    {
        switch predicate {
        case .comparison(let comparison):
            if comparison.path.steps.count == 1 {
                let column = binding.columnOfProperty[comparison.path.steps[0].property]
                return try test(comparison, row: row, column: column, binding: binding, key: identity)
            }
            // Through a nil or dangling link, every comparison is false.
            guard let end = try pathEnd(comparison.path, row: row, binding: binding, key: identity) else {
                return false
            }
            return try test(comparison, row: end.row, column: end.column, binding: end.binding, key: .key(end.key))
        case .collection(let condition):
            return try matches(condition, row: row, binding: binding, key: identity)
        case .constant(let value):
            return value
        case .and(let lhs, let rhs):
            // Not `&&`: its autoclosure would erase the typed throw.
            guard try matches(lhs, row: row, binding: binding, key: identity) else { return false }
            return try matches(rhs, row: row, binding: binding, key: identity)
        case .or(let lhs, let rhs):
            if try matches(lhs, row: row, binding: binding, key: identity) { return true }
            return try matches(rhs, row: row, binding: binding, key: identity)
        case .not(let inner):
            return try !matches(inner, row: row, binding: binding, key: identity)
        }
    }

    /// The comparison's test on `column` of `row` (the row `identity` names in `binding`).
    @inline(__always)
    private func test(
        _ comparison: Comparison, row: RowView, column: Int, binding: TableBinding, key identity: RowIdentity
    ) throws(StoreError) -> Bool {
        let bytes = try row.column(column, of: identity, in: binding)
        let outcome: Bool?
        if comparison.path.countsList {
            guard let bytes, let parts = try? ListFormat.elements(bytes).count else {
                throw .corrupted(
                    "\(binding.location(of: identity.key(in: binding), column: column)): a damaged collection")
            }
            let count = binding.columnTypes[column].isMap ? parts / 2 : parts
            var littleEndian = Int64(count).littleEndian
            outcome = Swift.withUnsafeBytes(of: &littleEndian) { comparison.test($0) }
        } else {
            outcome = comparison.test(bytes)
        }
        guard let outcome else {
            throw .corrupted(
                "\(binding.location(of: identity.key(in: binding), column: column)): undecodable in a query")
        }
        return outcome
    }

    /// Where `path` ends for the row `identity` names: the row, its binding and key, and the column of
    /// the path's last property, reached by following its links. Nil when a link on the way is nil or
    /// names a deleted row.
    ///
    /// - Throws: `.corrupted` when a link's bytes cannot be a key, `.storage`.
    func pathEnd(
        _ path: PropertyPath, row start: RowView, binding root: TableBinding, key identity: RowIdentity
    ) throws(StoreError) -> (row: RowView, binding: TableBinding, key: RowKey, column: Int)? {
        var row = start
        var binding = root
        var key: RowKey?
        let steps = path.steps
        for position in steps.indices.dropLast() {
            let column = binding.columnOfProperty[steps[position].property]
            let bytes: UnsafeRawBufferPointer?
            do {
                bytes = try row.column(column)
            } catch {
                throw .damaged(at: binding.location(of: key ?? identity.key(in: binding), column: column), error)
            }
            guard let bytes else { return nil }
            let target = try rows.core.tables.binding(for: steps[position + 1].schema)
            do {
                key = try RowKey(stored: bytes, kind: target.keyKind)
            } catch {
                throw .damaged(at: binding.location(of: key ?? identity.key(in: binding), column: column), error)
            }
            guard let next = try rows.fetchRow(target, key: key!) else { return nil }
            row = next
            binding = target
        }
        guard let last = steps.last else { return nil }
        return (row, binding, key ?? identity.key(in: root), binding.columnOfProperty[last.property])
    }
}
