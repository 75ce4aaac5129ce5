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
public struct PropertyValues<Root: Object, Value>: Sequence {
    typealias Decode = (UnsafeRawBufferPointer?, _DecodeContext) throws(StoreError) -> Value

    let results: Results<Root>
    let keyPath: KeyPath<Root, Value>
    /// The row column holding the values and how to decode them, when they need no object.
    let column: (index: Int, decode: Decode)?

    init(results: Results<Root>, keyPath: KeyPath<Root, Value>, column: (index: Int, decode: Decode)?) {
        self.results = results
        self.keyPath = keyPath
        self.column = column
    }

    /// Reads the values one by one, as the sequence is iterated.
    public func makeIterator() -> Iterator {
        if let column {
            return Iterator(walk: results.rowWalk(), column: column, binding: results.binding)
        }
        return Iterator(objects: results.makeIterator(), keyPath: keyPath)
    }

    /// The number of objects of the Results.
    public var underestimatedCount: Int { results.count }

    /// Reads each value from its row (or through its object).
    public struct Iterator: IteratorProtocol {
        private var walk: RowWalk?
        private var column: (index: Int, decode: Decode)?
        private let binding: TableBinding?
        private var objects: Results<Root>.Iterator?
        private let keyPath: KeyPath<Root, Value>?

        init(walk: RowWalk, column: (index: Int, decode: Decode), binding: TableBinding) {
            self.walk = walk
            self.column = column
            self.binding = binding
            objects = nil
            keyPath = nil
        }

        init(objects: Results<Root>.Iterator, keyPath: KeyPath<Root, Value>) {
            walk = nil
            column = nil
            binding = nil
            self.objects = objects
            self.keyPath = keyPath
        }

        /// The next value, or nil at the end.
        public mutating func next() -> Value? {
            if let column {
                walk!.core.assertConfined()
                guard let (key, row) = walk!.nextRow() else { return nil }
                do {
                    let bytes = try row.column(column.index)
                    return try column.decode(bytes, _DecodeContext(owner: nil, column: column.index))
                } catch {
                    let place = binding!.location(of: key, column: column.index)
                    preconditionFailure("\(TrapMessage.corrupted): \(place): \(error)")
                }
            }
            guard let object = objects!.next() else { return nil }
            return object[keyPath: keyPath!]
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
        let decode: PropertyValues<Element, Value>.Decode = { (bytes, context) throws(StoreError) -> Value in
            try Value._strataDecodeColumn(bytes, in: context)
        }
        let column = storedColumn(of: keyPath).map { ($0, decode) }
        return PropertyValues(results: self, keyPath: keyPath, column: column)
    }

    /// The values of a key path of any type, read through the objects (one reused accessor for all).
    ///
    /// - Warning: Confined to the Store's thread.
    @_disfavoredOverload
    public func values<Value>(of keyPath: KeyPath<Element, Value>) -> PropertyValues<Element, Value> {
        core.assertConfined()
        return PropertyValues(results: self, keyPath: keyPath, column: nil)
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
