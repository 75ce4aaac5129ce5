/// The values of one property of the objects of a `Results`, in the Results' order: a lazy sequence
/// that reads the column straight from the rows and makes no object (for a property stored in the
/// row; anything else, such as a link, a List or a computed property, is read through the objects).
///
/// ```swift
/// var total = 0.0
/// for score in store.objects(Player.self).values(of: \.score) { total += score }
/// let names = Array(store.objects(Player.self).where { $0.level > 3 }.values(of: \.name))
/// ```
/// Like iterating the Results, it visits the objects the Results held when the iteration began.
///
/// - Warning: Confined to its Store's thread, like the Results.
public struct PropertyValues<Root: Object, Value: _Persistable>: Sequence {
    let results: Results<Root>
    let keyPath: KeyPath<Root, Value>
    /// The row column holding the values, when they decode without an object.
    let column: Int?

    init(results: Results<Root>, keyPath: KeyPath<Root, Value>) {
        self.results = results
        self.keyPath = keyPath
        column = results.storedColumn(of: keyPath)
    }

    /// Reads the values one by one, as the sequence is iterated. For a Results of conditions only,
    /// the values of the matches are read in one scan as the cursor walks (no key, no row kept).
    public func makeIterator() -> Iterator {
        results.observeElements(.contents)
        if let column, let values = results.scannedValues(column, as: Value.self) {
            return Iterator(results: results, values: values)
        }
        if let column { return Iterator(results: results, walk: results.rowWalk(), column: column) }
        return Iterator(results: results, objects: results.makeIterator(), keyPath: keyPath)
    }

    /// The number of objects of the Results.
    public var underestimatedCount: Int { results.count }

    /// Reads each value from its row (or through its object).
    public struct Iterator: IteratorProtocol {
        /// Keeps the Store (and its tables) alive: the walk only refers to them.
        private let results: Results<Root>
        @usableFromInline var walk: RowWalk?
        @usableFromInline let column: Int
        @usableFromInline var objects: Results<Root>.Iterator?
        @usableFromInline let keyPath: KeyPath<Root, Value>?
        /// The values read in one scan, and the position of the next.
        @usableFromInline let scanned: [Value]?
        @usableFromInline var position = 0

        init(results: Results<Root>, walk: RowWalk, column: Int) {
            self.results = results
            self.walk = walk
            self.column = column
            objects = nil
            keyPath = nil
            scanned = nil
        }

        init(results: Results<Root>, values: [Value]) {
            self.results = results
            walk = nil
            column = -1
            objects = nil
            keyPath = nil
            scanned = values
        }

        init(results: Results<Root>, objects: Results<Root>.Iterator, keyPath: KeyPath<Root, Value>) {
            self.results = results
            walk = nil
            column = -1
            self.objects = objects
            self.keyPath = keyPath
            scanned = nil
        }

        /// The next value, or nil at the end.
        @inlinable
        public mutating func next() -> Value? {
            if let scanned {
                guard position < scanned.count else { return nil }
                position += 1
                return scanned[position - 1]
            }
            guard walk != nil else {
                guard let object = objects!.next() else { return nil }
                return object[keyPath: keyPath!]
            }
            // Inlined in the caller, so that the decoding is specialised for the property's type.
            guard let bytes = walk!.nextColumn(column) else { return nil }
            do {
                return try Value._strataDecodeColumn(bytes.value, in: _DecodeContext(owner: nil, column: column))
            } catch {
                walk!.trapDamagedColumn(column, error)
            }
        }
    }
}

extension Results {
    /// The values of one property, in the Results' order, read from the rows without making objects:
    /// the fast way to read one column (as `Double.fetchCursor` in GRDB, `value(forKey:)` in Realm).
    ///
    /// ```swift
    /// let scores = store.objects(Player.self).values(of: \.score)
    /// print(scores.reduce(0, +))
    /// ```
    /// A key path that names no stored property (a computed property, a link's property) is read
    /// through the objects, one reused accessor for all (see `Results.Iterator`).
    ///
    /// - Warning: Confined to the Store's thread.
    public func values<Value: _Persistable>(of keyPath: KeyPath<Element, Value>) -> PropertyValues<Element, Value> {
        core.assertConfined()
        return PropertyValues(results: self, keyPath: keyPath)
    }

    /// The values of a key path of a type Strata does not store, read through the objects (one reused
    /// accessor for all).
    ///
    /// - Warning: Confined to the Store's thread.
    @_disfavoredOverload
    public func values<Value>(of keyPath: KeyPath<Element, Value>) -> LazyMapSequence<Results, Value> {
        core.assertConfined()
        return lazy.map { $0[keyPath: keyPath] }
    }

    /// The values of `column` of the matches of a Results made of conditions only (key order),
    /// decoded in one scan; nil for other Results (a whole table, sorts, filters…), which walk rows.
    ///
    /// - Warning: Traps on a damaged row, as reading the objects would.
    func scannedValues<Value: _Persistable>(_ column: Int, as type: Value.Type) -> [Value]? {
        guard case .collected(let access, sort: nil) = plan.route else { return nil }
        return synchronizedEvaluating("reading") { (engine) throws(StoreError) in
            try engine.values(of: column, access, as: Value.self)
        }
    }

    /// The column of a key path naming one stored property whose values decode without a Store (not
    /// a link nor a List), or nil.
    func storedColumn(of keyPath: PartialKeyPath<Element>) -> Int? {
        guard let path = KeyPathResolver.path(keyPath, in: binding.schema), path.steps.count == 1, !path.countsList
        else { return nil }
        let column = binding.columnOfProperty[path.steps[0].property]
        guard column >= 0 else { return nil }
        switch binding.columnTypes[column] {
        case .link, .list: return nil
        default: return column
        }
    }
}
