/// A condition on the elements of a List or MutableSet of the row (or of a row its to-one links
/// reach): `ANY dogs.age > 3`, `ALL tags == "x"`, `NONE …`, `dogs.@count`, `SUBQUERY(…).@count`,
/// `scores.@sum > 10`, `dogs.@max.age < 5` — in the string language and the closure form
/// (`$0.dogs.contains { $0.age > 3 }`, `allSatisfy`, `count`, `sum(of:)`).
final class CollectionCondition {
    enum Quantifier { case any, all, noElement }

    enum Aggregate { case sum, average, minimum, maximum }

    enum Kind {
        /// Each element (a value) tested.
        case values(Quantifier, ColumnTest)
        /// Each element (a link) tested: the linked row against a condition on its type.
        case objects(Quantifier, Predicate, target: ObjectSchema)
        /// The number of elements (of linked rows that satisfy a condition, when given), tested as an
        /// Int64 column.
        case count(Predicate?, target: ObjectSchema?, test: ColumnTest)
        /// An aggregate of the elements' numbers (or of a property of the linked rows), as a Double;
        /// the test sees nil for the minimum or maximum of none.
        case aggregate(
            Aggregate, elementType: PropertyType, targetProperty: (ObjectSchema, Int)?, test: (Double?) -> Bool)
    }

    /// The path to the collection property (steps before the last are to-one links); empty for
    /// `LinkingObjects` of the row itself.
    let path: PropertyPath
    let kind: Kind
    let text: String
    /// For a `LinkingObjects` property: the origin type and its link property whose backlinks are the
    /// elements (read from the backlink table; the property has no column).
    let linking: (origin: ObjectSchema, property: String)?
    /// For a Map (`phones.@keys`, `phones.@values`): which of its entries' halves are the elements.
    let mapPart: MapPart?

    /// A Map's keys or its values (stored as one list, key then value for each entry).
    enum MapPart {
        case keys, values
    }

    init(
        path: PropertyPath, kind: Kind, text: String, linking: (origin: ObjectSchema, property: String)? = nil,
        mapPart: MapPart? = nil
    ) {
        self.path = path
        self.kind = kind
        self.text = text
        self.linking = linking
        self.mapPart = mapPart
    }
}

extension CollectionCondition.Quantifier {
    /// The quantifier a query's `ANY`/`SOME` (or none), `ALL`, `NONE` names.
    init(_ quantifier: QueryNode.Quantifier?) {
        switch quantifier {
        case .all: self = .all
        case .noElement: self = .noElement
        default: self = .any
        }
    }

    /// The answer once one element's outcome decides it (nil: look at the next element).
    @inline(__always)
    func decided(by outcome: Bool) -> Bool? {
        switch self {
        case .any: outcome ? true : nil
        case .all: outcome ? nil : false
        case .noElement: outcome ? false : nil
        }
    }

    /// The answer when no element decided it (every element looked at, or none).
    var whenUndecided: Bool { self != .any }
}

extension CollectionCondition.Aggregate {
    /// The aggregate a query's `@sum`, `@avg`, `@min`, `@max` names (any case); nil for other names.
    init?(operatorName name: String) {
        switch name.lowercased() {
        case "@sum": self = .sum
        case "@avg": self = .average
        case "@min": self = .minimum
        case "@max": self = .maximum
        default: return nil
        }
    }

    /// The aggregate of `numbers` (nil for the mean, minimum or maximum of none).
    func value(of numbers: [Double]) -> Double? {
        switch self {
        case .sum: numbers.reduce(0, +)
        case .average: numbers.isEmpty ? nil : numbers.reduce(0, +) / Double(numbers.count)
        case .minimum: numbers.min()
        case .maximum: numbers.max()
        }
    }
}

extension PredicateEvaluator {
    /// Whether the collection condition holds for the row `identity` names in `binding`.
    ///
    /// - Throws: `.corrupted` naming the row when the collection or an element is damaged, `.storage`.
    func matches(_ condition: CollectionCondition, row: RowView, binding: TableBinding, key identity: RowIdentity)
        throws(StoreError) -> Bool
    {
        if let linking = condition.linking {
            return try matchesLinking(condition, linking, key: identity.key(in: binding))
        }
        guard let end = try pathEnd(condition.path, row: row, binding: binding, key: identity) else { return false }
        let place = end.binding.location(of: end.key, column: end.column)
        var elements: [UnsafeRawBufferPointer?]
        do {
            guard let bytes = try end.row.column(end.column) else { return false }
            elements = try ListFormat.elements(bytes)
        } catch {
            throw .corrupted("\(place): a damaged collection: \(error)")
        }
        if let part = condition.mapPart {
            elements = stride(from: part == .keys ? 0 : 1, to: elements.count, by: 2).map { elements[$0] }
        }
        func undecodable() -> StoreError { .corrupted("\(place): an element is undecodable in a query") }
        switch condition.kind {
        case .values(let quantifier, let test):
            for element in elements {
                guard let outcome = test(element) else { throw undecodable() }
                if let answer = quantifier.decided(by: outcome) { return answer }
            }
            return quantifier.whenUndecided
        case .objects(let quantifier, let inner, let target):
            let targetBinding = try rows.core.tables.binding(for: target)
            for element in elements {
                guard let found = try linkedRow(element, targetBinding, place: place) else { continue }
                let outcome = try matches(inner, row: found.row, binding: targetBinding, key: .key(found.key))
                if let answer = quantifier.decided(by: outcome) { return answer }
            }
            return quantifier.whenUndecided
        case .count(let inner, let target, let test):
            // A Map stores its keys and values as one list: two elements per entry.
            var count = end.binding.columnTypes[end.column].isMap ? elements.count / 2 : elements.count
            if let inner, let target {
                let targetBinding = try rows.core.tables.binding(for: target)
                count = 0
                for element in elements {
                    guard let found = try linkedRow(element, targetBinding, place: place) else { continue }
                    if try matches(inner, row: found.row, binding: targetBinding, key: .key(found.key)) { count += 1 }
                }
            }
            var littleEndian = Int64(count).littleEndian
            guard let outcome = Swift.withUnsafeBytes(of: &littleEndian, { test($0) }) else { throw undecodable() }
            return outcome
        case .aggregate(let aggregate, let elementType, let targetProperty, let test):
            var numbers: [Double] = []
            for element in elements {
                var bytes = element
                var type = elementType
                if let (target, property) = targetProperty {
                    let targetBinding = try rows.core.tables.binding(for: target)
                    guard let found = try linkedRow(element, targetBinding, place: place) else { continue }
                    let column = targetBinding.columnOfProperty[property]
                    do {
                        bytes = try found.row.column(column)
                    } catch {
                        throw .damaged(at: targetBinding.location(of: found.key, column: column), error)
                    }
                    type = targetBinding.columnTypes[column]
                }
                guard let bytes else { continue }  // nil takes no part, as in Realm
                guard let number = Self.number(bytes, type: type) else { throw undecodable() }
                numbers.append(number)
            }
            return test(aggregate.value(of: numbers))
        }
    }

    /// A condition on the objects linking to the row under `key` (its `LinkingObjects`).
    private func matchesLinking(
        _ condition: CollectionCondition, _ linking: (origin: ObjectSchema, property: String), key: RowKey
    ) throws(StoreError) -> Bool {
        let origin = try rows.core.tables.binding(for: linking.origin)
        var linked: [(key: RowKey, row: RowView)] = []
        for originKey in try rows.core.backlinks(to: key, from: linking.origin.type, through: linking.property) ?? [] {
            if let row = try rows.fetchRow(origin, key: originKey) { linked.append((originKey, row)) }
        }
        switch condition.kind {
        case .objects(let quantifier, let inner, _):
            for item in linked {
                let outcome = try matches(inner, row: item.row, binding: origin, key: .key(item.key))
                if let answer = quantifier.decided(by: outcome) { return answer }
            }
            return quantifier.whenUndecided
        case .count(let inner, _, let test):
            var count = 0
            for item in linked
            where try inner.map({ (inner) throws(StoreError) in
                try matches(inner, row: item.row, binding: origin, key: .key(item.key))
            }) ?? true {
                count += 1
            }
            var littleEndian = Int64(count).littleEndian
            guard let outcome = Swift.withUnsafeBytes(of: &littleEndian, { test($0) }) else {
                throw .corrupted("\(origin.name): a count is undecodable in a query")
            }
            return outcome
        case .aggregate(let aggregate, _, let targetProperty, let test):
            var numbers: [Double] = []
            if let (_, property) = targetProperty {
                let column = origin.columnOfProperty[property]
                for item in linked {
                    let bytes: UnsafeRawBufferPointer?
                    do {
                        bytes = try item.row.column(column)
                    } catch {
                        throw .damaged(at: origin.location(of: item.key, column: column), error)
                    }
                    guard let bytes else { continue }
                    guard let number = Self.number(bytes, type: origin.columnTypes[column]) else {
                        throw .corrupted("\(origin.location(of: item.key, column: column)): undecodable in a query")
                    }
                    numbers.append(number)
                }
            }
            return test(aggregate.value(of: numbers))
        case .values:
            return false  // a LinkingObjects holds objects
        }
    }

    /// The row an element of a collection of links names; nil for a null element or a deleted target.
    private func linkedRow(_ element: UnsafeRawBufferPointer?, _ target: TableBinding, place: String)
        throws(StoreError) -> (key: RowKey, row: RowView)?
    {
        guard let element else { return nil }
        let key: RowKey
        do {
            key = try RowKey(stored: element, kind: target.keyKind)
        } catch {
            throw .corrupted("\(place): a damaged link: \(error)")
        }
        guard let row = try rows.fetchRow(target, key: key) else { return nil }
        return (key, row)
    }

    /// A stored number (an integer, Float, Double, Date as seconds, Decimal128 or Decimal) as a Double.
    static func number(_ bytes: UnsafeRawBufferPointer, type: PropertyType) -> Double? {
        let type = type.unwrapped
        if let order = ColumnOrder(type) {
            switch order {
            case .signed(let width):
                return bytes.count == width ? Double(ColumnOrder.signedValue(bytes, width: width)) : nil
            case .unsigned(let width):
                return bytes.count == width ? Double(ColumnOrder.unsignedValue(bytes, width: width)) : nil
            case .float: return bytes.count == 4 ? Double(Float(bitPattern: bytes.loadUnaligned(as: UInt32.self))) : nil
            case .double: return bytes.count == 8 ? Double(bitPattern: bytes.loadUnaligned(as: UInt64.self)) : nil
            case .bool, .bytes: return nil
            }
        }
        guard let swiftType = DynamicValue.swiftType(type),
            let value = try? swiftType._strataDecodeValue(bytes, in: _DecodeContext(owner: nil, column: 0))
        else { return nil }
        return (value as? any _QueryNumeric)?._queryDouble
    }
}
