extension Results {
    /// The objects that satisfy a query written in Realm Query Language's syntax, with its `SORT`,
    /// `DISTINCT` and `LIMIT` clauses. Arguments are `$0`, `$1`…: values are never spliced into the
    /// text, so user input cannot change the query's meaning.
    ///
    /// ```swift
    /// let found = try people.where("age > $0 AND name BEGINSWITH[c] $1", 18, "a")
    /// let owners = try people.where("ANY dogs.age > 3 SORT(name ASC) LIMIT(10)")
    /// let busy = try people.where("SUBQUERY(dogs, $d, $d.age < 2).@count >= 2 OR dogs.@count > 4")
    /// ```
    /// Operators: `==` (`=`), `!=` (`<>`), `<`, `<=`, `>`, `>=`, `BETWEEN {a, b}`, `IN {a, b}` (or an array
    /// argument); on strings `BEGINSWITH`, `ENDSWITH`, `CONTAINS`, `LIKE` (`*`, `?`), each with `[c]`
    /// (case-insensitive), `[d]` (diacritic-insensitive) or `[cd]`; `AND` (`&&`), `OR` (`||`), `NOT` (`!`),
    /// parentheses, `TRUEPREDICATE`, `FALSEPREDICATE`. Key paths go through links (`owner.name`); on a
    /// List or MutableSet `ANY`/`SOME` (the default), `ALL`, `NONE`, `@count`/`@size`, `@sum`, `@avg`,
    /// `@min`, `@max` (of numbers, or `dogs.@max.age`) and `SUBQUERY(list, $x, condition).@count`.
    /// Literals: numbers, `'text'` or `"text"`, `true`, `false`, `nil` (`NULL`). The results are those of
    /// the same query written with `where { }` (Docs/Queries.md).
    ///
    /// - Throws: `.invalidArgument` naming the position (and the property) for a syntax error, an
    ///   unknown property, a value of the wrong type, an operator the property's type lacks, a missing
    ///   argument; `SORT` and `DISTINCT` take properties of the type itself whose values order by their
    ///   bytes (numbers, dates, Bools, strings, data, UUIDs) — others are `.invalidArgument` too.
    /// - Warning: Confined to the Store's thread, like the Results.
    public func `where`(_ query: String, _ arguments: any Sendable...) throws(StoreError) -> Results {
        try self.where(query, arguments: arguments)
    }

    /// `where(_:_:)` with the arguments as an array (what a caller building a query at run time has).
    public func `where`(_ query: String, arguments: [any Sendable]) throws(StoreError) -> Results {
        try compiled(query, arguments: arguments.map { $0 as Any? })
    }

    /// `where(_:_:)` with objects among the arguments, as Realm takes them: a stored object compares
    /// with a link, a List or MutableSet of links, or a mixed value holding a link.
    ///
    /// ```swift
    /// let staff = try people.where("employer == $0 AND age > $1", company, 30)
    /// let walkers = try people.where("ANY dogs == $0", rex)
    /// ```
    /// - Throws: as `where(_:_:)`; `.invalidArgument` for an object that is not stored (no row holds it).
    /// - Warning: The objects must be managed by this Results' Store (its thread); confined like the Results.
    public func `where`(_ query: String, _ arguments: Any...) throws(StoreError) -> Results {
        try compiled(query, arguments: arguments.map { $0 as Any? })
    }

    /// `where(_:_:)` with objects among the arguments, as an array.
    public func `where`(_ query: String, arguments: [Any]) throws(StoreError) -> Results {
        try compiled(query, arguments: arguments.map { $0 as Any? })
    }

    private func compiled(_ query: String, arguments: [Any?]) throws(StoreError) -> Results {
        core.assertConfined()
        let parsed = try QueryParser.parse(query)
        let compiler = QueryCompiler(text: query, arguments: arguments)
        var results = self
        if let condition = parsed.condition {
            results = results.adding(.predicate(try compiler.compile(condition, in: binding.schema)))
        }
        for clause in parsed.clauses {
            switch clause {
            case .sort(let keys):
                var sortKeys: [SortKey<Element>] = []
                for key in keys {
                    let property = try compiler.orderedProperty(key.path, in: binding, position: key.position)
                    sortKeys.append(SortKey(property: property, ascending: key.ascending))
                }
                results = results.adding(.sort(sortKeys))
            case .distinct(let paths):
                var properties: [Int] = []
                for path in paths {
                    properties.append(try compiler.orderedProperty(path.path, in: binding, position: path.position))
                }
                results = results.adding(.distinctProperties(properties))
            case .limit(let count):
                results = results.adding(.limit(count))
            }
        }
        return results
    }
}

extension QueryCompiler {
    /// The property a `SORT` or `DISTINCT` key names: one of the type's own, whose column orders by
    /// its bytes.
    func orderedProperty(_ names: [String], in binding: TableBinding, position: Int) throws(StoreError) -> Int {
        guard case .property(let path, let type) = try resolve(names, in: binding.schema, position: position),
            let property = path.directProperty, ColumnOrder(type) != nil
        else {
            throw .invalidArgument(
                "query \"\(text)\", at \(position): SORT and DISTINCT take a property of \(binding.name) itself holding "
                    + "numbers, dates, Bools, strings, data or UUIDs (\(QuerySyntax.text(of: names)) is not one; "
                    + "sorted(by:) and distinct(by:) take key paths through links)")
        }
        return property
    }
}
