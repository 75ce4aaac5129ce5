import Foundation

/// Implementation detail: a number that `average(of:)` can add up as a Double.
public protocol _QueryNumeric: _QueryComparable, AdditiveArithmetic {
    var _queryDouble: Double { get }
}

extension _QueryNumeric where Self: BinaryInteger {
    public var _queryDouble: Double { Double(self) }
}

extension _QueryNumeric where Self: BinaryFloatingPoint {
    public var _queryDouble: Double { Double(self) }
}

extension Int: _QueryNumeric {}
extension Int8: _QueryNumeric {}
extension Int16: _QueryNumeric {}
extension Int32: _QueryNumeric {}
extension Int64: _QueryNumeric {}
extension UInt8: _QueryNumeric {}
extension UInt16: _QueryNumeric {}
extension UInt32: _QueryNumeric {}
extension UInt64: _QueryNumeric {}
extension Float: _QueryNumeric {}
extension Double: _QueryNumeric {}
extension Decimal: _QueryNumeric {
    public var _queryDouble: Double { NSDecimalNumber(decimal: self).doubleValue }
}
extension Decimal128: _QueryNumeric {
    public var _queryDouble: Double { doubleValue }
}

extension Results {
    // MARK: Queries

    /// The objects that satisfy a type-safe query (see `Query`). Lazy and live like every Results.
    ///
    /// ```swift
    /// let adults = store.objects(Person.self).where { $0.age >= 18 && $0.name.starts(with: "A") }
    /// ```
    /// Equality, `in` and ranges on the primary key or an `indexed:` property read that index
    /// (`queryPlan` tells which); other conditions scan.
    ///
    /// - Warning: Traps when a key path names no `@Persisted` property (a computed property, say),
    ///   naming the key path and where the query was written.
    public func `where`(
        _ query: (Query<Element>) -> Query<Bool>, file: StaticString = #fileID, line: UInt = #line
    ) -> Results {
        let condition = QueryBuilding.$callSite.withValue("\(file):\(line)") {
            query(Query<Element>(.path(PropertyPath()))).predicate
        }
        return adding(.predicate(condition))
    }

    /// The objects for which `isIncluded` returns true: the escape hatch for conditions a query cannot
    /// express. It reads every object, so prefer `where`. Lazy and live.
    public func filter(_ isIncluded: @escaping (Element) -> Bool) -> Results {
        adding(.filter(isIncluded))
    }

    /// The objects sorted by one property.
    ///
    /// ```swift
    /// let byName = people.sorted(by: \.name)
    /// ```
    public func sorted<V: _QueryComparable>(by keyPath: KeyPath<Element, V>, ascending: Bool = true) -> Results {
        adding(.sort([SortKey(keyPath, ascending: ascending)]))
    }

    /// The objects sorted by several keys, the first one first.
    public func sorted(by keys: [SortKey<Element>]) -> Results {
        adding(.sort(keys))
    }

    /// The first object of each distinct combination of the values at `keyPaths`, in the current order.
    public func distinct(by keyPaths: [PartialKeyPath<Element>]) -> Results {
        adding(.distinct(keyPaths))
    }

    /// The first `maxLength` objects (all of them when there are fewer), as a live Results: a limit.
    /// After a sort only the first page is sorted (a heap of `maxLength` entries: O(n log k)), and a
    /// sort whose first key has an index reads that index in order and stops after the page.
    ///
    /// ```swift
    /// let newest = store.objects(Post.self).sorted(by: \.created, ascending: false).prefix(20)
    /// ```
    public func prefix(_ maxLength: Int) -> Results {
        precondition(maxLength >= 0, "Strata: prefix(\(maxLength)) of a negative length")
        return adding(.limit(maxLength))
    }

    /// How the Results finds its objects: the route its plan takes (the one that runs), and which
    /// index, if any, it reads.
    ///
    /// ```swift
    /// print(people.where { $0.age > 30 }.sorted(by: \.age).queryPlan)
    /// // scan Person in batch loops, then test age > 30, then radix sort by age
    /// ```
    public var queryPlan: QueryPlan {
        core.assertConfined()
        return QueryPlan(plan, binding: binding, stages: stages)
    }

    /// The position of `object` in the Results, or nil when it is not there.
    public func index(of object: Element) -> Int? {
        core.assertConfined()
        guard object._core === core, object._tableBinding === binding else { return nil }
        observeElements()
        return keys().firstIndex(of: object._key)
    }

    // MARK: Aggregates

    /// The smallest value of a property, or nil when there are no objects.
    public func min<V: _QueryComparable>(of keyPath: KeyPath<Element, V>) -> V? {
        extreme(of: keyPath) { $0 < 0 }
    }

    /// The smallest non-nil value of an optional property, or nil when there is none.
    public func min<V: _QueryComparable & _OptionalPersistable>(of keyPath: KeyPath<Element, V?>) -> V? {
        extreme(of: keyPath) { $0 < 0 } ?? nil
    }

    /// The greatest value of a property, or nil when there are no objects.
    public func max<V: _QueryComparable>(of keyPath: KeyPath<Element, V>) -> V? {
        extreme(of: keyPath) { $0 > 0 }
    }

    /// The greatest non-nil value of an optional property, or nil when there is none.
    public func max<V: _QueryComparable & _OptionalPersistable>(of keyPath: KeyPath<Element, V?>) -> V? {
        extreme(of: keyPath) { $0 > 0 } ?? nil
    }

    /// The sum of a property (zero when there are no objects), read from the column: no object is made.
    public func sum<V: _QueryNumeric>(of keyPath: KeyPath<Element, V>) -> V {
        observeElements(.contents)
        if let (column, matches) = columnRead(of: keyPath) {
            return synchronizedEvaluating("reading") { (engine) throws(StoreError) in
                try engine.sum(of: column, matches, as: V.self)
            }
        }
        var total = V.zero
        for value in values(of: keyPath) { total += value }
        return total
    }

    /// The sum of the non-nil values of an optional property.
    public func sum<V: _QueryNumeric & _OptionalPersistable>(of keyPath: KeyPath<Element, V?>) -> V {
        observeElements(.contents)
        if let (column, matches) = columnRead(of: keyPath) {
            return synchronizedEvaluating("reading") { (engine) throws(StoreError) in
                try engine.sum(of: column, matches, as: V.self)
            }
        }
        var total = V.zero
        for case let value? in values(of: keyPath) { total += value }
        return total
    }

    /// The mean of a property, or nil when there are no objects.
    public func average<V: _QueryNumeric>(of keyPath: KeyPath<Element, V>) -> Double? {
        observeElements(.contents)
        var mean = Mean()
        if forEachStoredValue(of: keyPath, as: V.self, { mean.add($0._queryDouble) }) { return mean.value }
        for value in values(of: keyPath) { mean.add(value._queryDouble) }
        return mean.value
    }

    /// The mean of the non-nil values of an optional property, or nil when there is none.
    public func average<V: _QueryNumeric & _OptionalPersistable>(of keyPath: KeyPath<Element, V?>) -> Double? {
        observeElements(.contents)
        var mean = Mean()
        if forEachStoredValue(of: keyPath, as: V.self, { mean.add($0._queryDouble) }) { return mean.value }
        for case let value? in values(of: keyPath) { mean.add(value._queryDouble) }
        return mean.value
    }

    private struct Mean {
        private var total = 0.0
        private var count = 0

        mutating func add(_ value: Double) {
            total += value
            count += 1
        }

        var value: Double? { count == 0 ? nil : total / Double(count) }
    }

    /// The value that wins `better` against every other non-nil one.
    private func extreme<V: _QueryComparable>(of keyPath: KeyPath<Element, V>, _ better: (Int) -> Bool) -> V? {
        observeElements(.contents)
        var best: V?
        func consider(_ value: V) {
            if value._queryIsNull { return }
            if let current = best, !better(V._queryCompare(value, current)) { return }
            best = value
        }
        if forEachStoredValue(of: keyPath, as: V.self, consider) { return best }
        for value in values(of: keyPath) { consider(value) }
        return best
    }

    /// The column of a stored property and the access to the matches, when the Results' values of
    /// it can be read from the rows (every stage a condition or a sort); nil otherwise.
    func columnRead(of keyPath: PartialKeyPath<Element>) -> (column: Int, matches: RowAccess)? {
        guard let matches = plan.matches, let column = storedColumn(of: keyPath) else { return nil }
        return (column, matches)
    }

    /// Visits the non-null values of a stored property read from the rows; false when the Results
    /// cannot be read so (the caller reads values).
    private func forEachStoredValue<V: _Persistable>(
        of keyPath: PartialKeyPath<Element>, as type: V.Type, _ visit: (V) -> Void
    ) -> Bool {
        guard let (column, matches) = columnRead(of: keyPath) else { return false }
        synchronizedEvaluating("reading") { (engine) throws(StoreError) in
            try engine.forEachValue(of: column, matches, as: V.self, visit)
        }
        return true
    }
}
