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
        let stages: [Stage] = try QueryCompiler(text: query, arguments: arguments).stages(in: binding)
        return Results(core: core, binding: binding, stages: self.stages + stages)
    }
}

extension QueryCompiler {
    /// The stages of the query `text` on the objects of `binding`, its clauses in the order written
    /// (`LIMIT(2) SORT(age DESC)` sorts two): what `Results.where(_:_:)` adds and what a
    /// `DynamicStore` plans, so both run one route for one query.
    ///
    /// - Throws: `.invalidArgument` naming the position, as `Results.where(_:_:)` documents.
    func stages<Element: Object>(in binding: TableBinding) throws(StoreError) -> [Results<Element>.Stage] {
        let parsed = try QueryParser.parse(text)
        var stages: [Results<Element>.Stage] = []
        let condition = try compile(parsed.condition, in: binding.schema)
        // TRUEPREDICATE tests nothing: the Results reads the whole table as it would without it.
        if case .constant(true) = condition {} else { stages.append(.predicate(condition)) }
        for clause in parsed.clauses {
            switch clause {
            case .sort(let keys):
                var paths: [PropertyPath] = []
                for key in keys {
                    paths.append(try orderedPath(key.path, in: binding, position: key.position))
                }
                // Columns of the type itself sort from their columns; a key through a link sorts every
                // key of the clause by order keys read through the objects.
                let properties = PropertyPath.directProperties(paths)
                stages.append(
                    .sort(
                        zip(keys, paths).enumerated().map { index, pair in
                            properties.map { SortKey(property: $0[index], ascending: pair.0.ascending) }
                                ?? SortKey(path: pair.1, ascending: pair.0.ascending)
                        }))
            case .distinct(let paths):
                var properties: [PropertyPath] = []
                for path in paths {
                    properties.append(try orderedPath(path.path, in: binding, position: path.position))
                }
                stages.append(.distinctPaths(properties))
            case .limit(let count):
                stages.append(.limit(count))
            }
        }
        return stages
    }

    /// The property a `SORT` or `DISTINCT` key names: one of the type's own, or one reached through
    /// to-one links (`account.balance`), whose column orders by its bytes.
    func orderedPath(_ names: [String], in binding: TableBinding, position: Int) throws(StoreError) -> PropertyPath {
        guard case .property(let path, let type) = try resolve(names, in: binding.schema, position: position),
            path.mapKey == nil, ColumnOrder(type) != nil
        else {
            throw .invalidArgument(
                "query \"\(text)\", at \(position): SORT and DISTINCT take a property of \(binding.name), or one "
                    + "reached through to-one links, holding numbers, dates, Bools, strings, data or UUIDs "
                    + "(\(QuerySyntax.text(of: names)) is not one)")
        }
        return path
    }
}
