/// The string query language on a `DynamicStore`: the same parser and the same tests on stored
/// bytes as `Results.where(_:_:)`, names resolved against the file's stored schema instead of model
/// classes, links followed in the read's snapshot.
indirect enum DynamicCondition {
    /// A step of a key path: a property (column) of a stored type.
    struct Step {
        let type: Int
        let property: Int
    }

    case constant(Bool)
    case and(DynamicCondition, DynamicCondition)
    case or(DynamicCondition, DynamicCondition)
    case not(DynamicCondition)
    /// The column at the end of `path` (every step but the last a link; a nil link: false).
    case test([Step], ColumnTest)
    /// The elements of the collection at the end of `path` (of a Map: its keys or its values).
    case elements([Step], CollectionCondition.Quantifier, ElementTest, mapPart: CollectionCondition.MapPart? = nil)
    /// The number of elements (of linked objects satisfying a condition, when given).
    case count([Step], inner: (type: Int, condition: DynamicCondition)?, ColumnTest)
    /// An aggregate of the elements' numbers, or of a property of the linked objects.
    case aggregate([Step], CollectionCondition.Aggregate, element: PropertyType, property: Step?, (Double?) -> Bool)

    enum ElementTest {
        case value(ColumnTest)
        case object(type: Int, DynamicCondition)
    }
}

extension DynamicStore {
    /// The objects of the type named `typeName` that satisfy `query` (Realm Query Language's syntax,
    /// as `Results.where(_:_:)`, with `SORT`, `DISTINCT` and `LIMIT`), read in one snapshot, in
    /// primary-key order unless sorted.
    ///
    /// ```swift
    /// let adults = try DynamicStore(path: path).objects(ofType: "Person", where: "age >= $0 SORT(name ASC)", arguments: [18])
    /// ```
    /// - Throws: `.invalidArgument` for an unknown type, a syntax error, an unknown property or a value
    ///   of the wrong type (naming the position); `.corrupted` for a damaged row; `.storage`.
    public func objects(ofType typeName: String, where query: String, arguments: [any Sendable] = [])
        throws(StoreError) -> [DynamicObject]
    {
        let typeIndex = try typeIndex(named: typeName)
        let parsed = try QueryParser.parse(query)
        let compiler = DynamicQueryCompiler(
            compiler: QueryCompiler(text: query, arguments: arguments.map { $0 as Any? }), stored: stored,
            typeIndexByName: typeIndexByName)
        let condition = try compiler.compile(parsed.condition, in: typeIndex)
        var clauses: [DynamicClause] = []
        for clause in parsed.clauses {
            switch clause {
            case .sort(let keys):
                var sortKeys: [DynamicClause.Key] = []
                for key in keys {
                    let (steps, type) = try compiler.orderedSteps(key.path, in: typeIndex, position: key.position)
                    sortKeys.append(DynamicClause.Key(steps: steps, type: type, ascending: key.ascending))
                }
                clauses.append(.sort(sortKeys))
            case .distinct(let paths):
                var keys: [DynamicClause.Key] = []
                for path in paths {
                    let (steps, type) = try compiler.orderedSteps(path.path, in: typeIndex, position: path.position)
                    keys.append(DynamicClause.Key(steps: steps, type: type, ascending: true))
                }
                clauses.append(.distinct(keys))
            case .limit(let count): clauses.append(.limit(count))
            }
        }
        let type = verifiedTypes[typeIndex]
        let storedType = stored.types[typeIndex]
        var results: [DynamicObject] = []
        let failure: StoreError? = try read { (transaction) throws(LMDBError) -> StoreError? in
            do throws(StoreError) {
                var found: [(key: [UInt8], row: RowView, stored: UnsafeRawBufferPointer)] = []
                let visitFailure = try StoreError.mapping { () throws(LMDBError) -> StoreError? in
                    try transaction.withCursor(type.table) { (cursor) throws(LMDBError) -> StoreError? in
                        try cursor.walk(from: cursor.first()) { (entry) throws(StoreError) in
                            let row = try checkedRow(entry.value, key: entry.key, type: typeIndex)
                            if try matches(condition, row: row, in: transaction) {
                                found.append((Array(entry.key), row, entry.value))
                            }
                        }
                    }
                }
                if let visitFailure { throw visitFailure }
                // The clauses as written, as `Results` applies them (`LIMIT(2) SORT(age DESC)` sorts two).
                var order = Array(found.indices)
                let rows = found.map(\.row)
                for clause in clauses {
                    order = try applying(clause, to: order, rows: rows, type: typeIndex, in: transaction)
                }
                var objects: [DynamicObject] = []
                for index in order {
                    let match = found[index]
                    objects.append(
                        try match.key.withBytes { (key) throws(StoreError) in
                            try object(key: key, row: match.stored, type: type, stored: storedType, in: transaction)
                        })
                }
                results = objects
                return nil
            } catch {
                return error
            }
        }
        if let failure { throw failure }
        return results
    }
}

/// Resolves the names of a parsed query against the stored schema.
struct DynamicQueryCompiler {
    let compiler: QueryCompiler
    let stored: StoredSchema
    let typeIndexByName: [String: Int]

    private func fail(_ message: String, at position: Int) -> StoreError {
        .invalidArgument("query \"\(compiler.text)\", at \(position): \(message)")
    }

    private enum Target {
        case property([DynamicCondition.Step], PropertyType)
        case elements([DynamicCondition.Step], element: PropertyType, rest: [String])
        case count([DynamicCondition.Step])
        /// `map['key']`: the value of a Map under a key, of the Map's value type made optional.
        case mapValue([DynamicCondition.Step], key: String, PropertyType)
        /// `map.@keys`, `map.@values`.
        case mapElements([DynamicCondition.Step], CollectionCondition.MapPart, element: PropertyType)
        case aggregate([DynamicCondition.Step], CollectionCondition.Aggregate, PropertyType, DynamicCondition.Step?)
        /// `name.@size`: a String's or Data's length in bytes.
        case length([DynamicCondition.Step])
    }

    private func linkedType(_ name: String, position: Int) throws(StoreError) -> Int {
        guard let index = typeIndexByName[name] else { throw fail("the linked type \(name) is unknown", at: position) }
        return index
    }

    private func resolve(_ names: [String], in root: Int, position: Int) throws(StoreError) -> Target {
        var type = root
        var steps: [DynamicCondition.Step] = []
        var index = 0
        while index < names.count {
            let storedType = stored.types[type]
            guard let property = storedType.properties.firstIndex(where: { $0.name == names[index] }) else {
                let known = storedType.properties.map(\.name).joined(separator: ", ")
                throw fail("\(storedType.name) has no property \"\(names[index])\" (it has \(known))", at: position)
            }
            steps.append(DynamicCondition.Step(type: type, property: property))
            let propertyType = storedType.properties[property].type
            let rest = Array(names[(index + 1)...])
            let name = steps.map { stored.types[$0.type].properties[$0.property].name }.joined(separator: ".")
            switch propertyType {
            case .link(let target):
                guard !rest.isEmpty else { return .property(steps, propertyType) }
                type = try linkedType(target, position: position)
                index += 1
            case .list(let element), .set(let element):
                guard let first = rest.first, first.hasPrefix("@") else {
                    return .elements(steps, element: element, rest: rest)
                }
                if ["@count", "@size"].contains(first.lowercased()) { return .count(steps) }
                guard let aggregate = CollectionCondition.Aggregate(operatorName: first) else {
                    throw fail("unknown collection operator \(first)", at: position)
                }
                if case .link(let target) = element {
                    let targetIndex = try linkedType(target, position: position)
                    guard rest.count == 2,
                        let targetProperty = stored.types[targetIndex].properties.firstIndex(where: {
                            $0.name == rest[1]
                        }),
                        PredicateEvaluator.isNumeric(stored.types[targetIndex].properties[targetProperty].type)
                    else { throw fail("\(first) on \(name) needs a number property of \(target)", at: position) }
                    return .aggregate(
                        steps, aggregate, element, DynamicCondition.Step(type: targetIndex, property: targetProperty))
                }
                guard rest.count == 1, PredicateEvaluator.isNumeric(element) else {
                    throw fail("\(first) needs a collection of numbers (\(name) holds \(element))", at: position)
                }
                return .aggregate(steps, aggregate, element, nil)
            case .map(let value):
                if rest.count == 1, ["@count", "@size"].contains(rest[0].lowercased()) { return .count(steps) }
                if rest.count == 1, let key = QuerySyntax.mapKey(of: rest[0]) {
                    return .mapValue(steps, key: key, value.isOptional ? value : .optional(value))
                }
                if rest.count == 1, rest[0].lowercased() == "@keys" {
                    return .mapElements(steps, .keys, element: .string)
                }
                if rest.count == 1, rest[0].lowercased() == "@values" {
                    return .mapElements(steps, .values, element: value)
                }
                throw fail(
                    "\(name) is a Map: read a value with \(name)['key'], its @keys, @values or @count", at: position)
            default:
                if rest.count == 1, QueryCompiler.isLengthOperator(rest[0], of: propertyType) { return .length(steps) }
                guard rest.isEmpty else {
                    throw fail("\(name) is a \(propertyType), it has no property \"\(rest[0])\"", at: position)
                }
                return .property(steps, propertyType)
            }
        }
        throw fail("an empty key path", at: position)
    }

    /// A `SORT` or `DISTINCT` key: a property of the type itself, or reached through to-one links,
    /// whose column orders by its bytes.
    func orderedSteps(_ names: [String], in type: Int, position: Int) throws(StoreError) -> (
        [DynamicCondition.Step], PropertyType
    ) {
        guard case .property(let steps, let propertyType) = try resolve(names, in: type, position: position),
            ColumnOrder(propertyType) != nil
        else {
            throw fail(
                "SORT and DISTINCT take a property of \(stored.types[type].name), or one reached through to-one "
                    + "links, holding numbers, dates, Bools, strings, data or UUIDs", at: position)
        }
        return (steps, propertyType)
    }

    func compile(_ node: QueryNode, in type: Int) throws(StoreError) -> DynamicCondition {
        switch node {
        case .constant(let value): return .constant(value)
        case .and(let a, let b): return .and(try compile(a, in: type), try compile(b, in: type))
        case .or(let a, let b): return .or(try compile(a, in: type), try compile(b, in: type))
        case .not(let a): return .not(try compile(a, in: type))
        case .between(let subject, let low, let high, let position):
            return .and(
                try compile(
                    .comparison(subject, .greaterOrEqual, low, options: [], quantifier: nil, position: position),
                    in: type),
                try compile(
                    .comparison(subject, .lessOrEqual, high, options: [], quantifier: nil, position: position), in: type
                ))
        case .comparison(let lhs, let op, let rhs, let options, let quantifier, let position):
            if case .subqueryCount(let collection, let variable, let inner, let subqueryPosition) = lhs {
                guard
                    case .elements(let steps, .link(let target), let rest) = try resolve(
                        collection, in: type, position: subqueryPosition),
                    rest.isEmpty
                else { throw fail("SUBQUERY needs a List or MutableSet of objects", at: subqueryPosition) }
                let targetIndex = try linkedType(target, position: subqueryPosition)
                let condition = try compile(QueryCompiler.strippingVariable(variable, from: inner), in: targetIndex)
                let test = try compiler.valueTest(
                    .int64, op, try compiler.value(rhs), options: [], position: position, property: "SUBQUERY"
                ).test
                return .count(steps, inner: (targetIndex, condition), test)
            }
            if op == .in, case .keyPath = rhs, !lhs.isKeyPath {
                // `$0 IN tags`: a value in a collection property (RQL), as `ANY tags == $0`.
                return try compile(
                    .comparison(rhs, .equal, lhs, options: options, quantifier: quantifier, position: position),
                    in: type)
            }
            let (names, operand, op) = try compiler.propertyFirst(lhs, op, rhs, position: position)
            let value = try compiler.value(operand)
            let name = QuerySyntax.text(of: names)
            switch try resolve(names, in: type, position: position) {
            case .property(let steps, let propertyType):
                guard quantifier == nil else { throw fail("ANY, ALL and NONE need a collection", at: position) }
                if case .link(let target) = propertyType {
                    return .test(
                        steps, try compiler.linkTest(op, value, target: target, position: position, property: name))
                }
                return .test(
                    steps,
                    try compiler.valueTest(
                        propertyType, op, value, options: options, position: position, property: name,
                        throughLink: steps.count > 1
                    ).test)
            case .length(let steps):
                guard quantifier == nil else { throw fail("ANY, ALL and NONE need a collection", at: position) }
                return .test(
                    steps, try compiler.lengthTest(op, value, options: options, position: position, property: name))
            case .mapValue(let steps, let key, let valueType):
                guard quantifier == nil else { throw fail("ANY, ALL and NONE need a collection", at: position) }
                let test = try compiler.valueTest(
                    valueType, op, value, options: options, position: position, property: name)
                return .test(steps, PropertyPath.testing(valueUnder: key, test.test))
            case .mapElements(let steps, let part, let element):
                if case .link = element { throw fail("\(name) holds objects: not in queries", at: position) }
                let test = try compiler.valueTest(
                    element, op, value, options: options, position: position, property: name)
                return .elements(
                    steps, CollectionCondition.Quantifier(quantifier), .value(test.test), mapPart: part)
            case .count(let steps):
                return .count(
                    steps, inner: nil,
                    try compiler.valueTest(.int64, op, value, options: options, position: position, property: name).test
                )
            case .aggregate(let steps, let aggregate, let element, let property):
                return .aggregate(
                    steps, aggregate, element: element, property: property,
                    try compiler.numberTest(op, value, position: position, property: name))
            case .elements(let steps, let element, let rest):
                let quantifier = CollectionCondition.Quantifier(quantifier)
                if case .link(let target) = element {
                    guard !rest.isEmpty else {
                        throw fail("\(name) holds \(target) objects: compare one of their properties", at: position)
                    }
                    let targetIndex = try linkedType(target, position: position)
                    let inner = try compile(
                        .comparison(
                            .keyPath(rest, position: position), op, operand, options: options, quantifier: nil,
                            position: position),
                        in: targetIndex)
                    return .elements(steps, quantifier, .object(type: targetIndex, inner))
                }
                guard rest.isEmpty else { throw fail("\(name) holds \(element) values, not objects", at: position) }
                return .elements(
                    steps, quantifier,
                    .value(
                        try compiler.valueTest(element, op, value, options: options, position: position, property: name)
                            .test))
            }
        }
    }
}

extension DynamicStore {
    /// A stored row of the type at `type`, its seal and header checked.
    func checkedRow(_ stored: UnsafeRawBufferPointer, key: UnsafeRawBufferPointer, type: Int) throws(StoreError)
        -> RowView
    {
        do {
            return try RowView(stored: stored, key: key, expectedColumns: self.stored.types[type].properties.count)
        } catch {
            throw .corrupted("\(self.stored.types[type].name): a damaged row: \(error)")
        }
    }

    /// The row a link's key bytes name in the type at `type`; nil when the target is gone.
    private func linkedRow(_ key: UnsafeRawBufferPointer, type: Int, in transaction: borrowing ReadTransaction)
        throws(StoreError) -> RowView?
    {
        let found = try StoreError.mapping { () throws(LMDBError) in
            try transaction.get(verifiedTypes[type].table, key: key)
        }
        guard let found else { return nil }
        return try checkedRow(found, key: key, type: type)
    }

    private func column(_ row: RowView, _ step: DynamicCondition.Step) throws(StoreError) -> UnsafeRawBufferPointer? {
        do {
            return try row.column(step.property)
        } catch {
            throw .corrupted(
                "\(stored.types[step.type].name).\(stored.types[step.type].properties[step.property].name): \(error)")
        }
    }

    /// The bytes of the last step's column, following the links before it; `.some(nil)` for a null
    /// column, nil when a link on the way is nil or gone.
    func end(_ steps: [DynamicCondition.Step], row start: RowView, in transaction: borrowing ReadTransaction)
        throws(StoreError) -> UnsafeRawBufferPointer??
    {
        var row = start
        for (position, step) in steps.enumerated() {
            let bytes = try column(row, step)
            guard position < steps.count - 1 else { return .some(bytes) }
            guard let bytes, let next = try linkedRow(bytes, type: steps[position + 1].type, in: transaction) else {
                return nil
            }
            row = next
        }
        return nil
    }

    /// Whether `condition` holds for `row` (of the type at `type`).
    func matches(_ condition: DynamicCondition, row: RowView, in transaction: borrowing ReadTransaction)
        throws(StoreError) -> Bool
    {
        func undecodable() -> StoreError { .corrupted("a value is undecodable in a query") }
        switch condition {
        case .constant(let value): return value
        case .and(let a, let b):
            guard try matches(a, row: row, in: transaction) else { return false }
            return try matches(b, row: row, in: transaction)
        case .or(let a, let b):
            if try matches(a, row: row, in: transaction) { return true }
            return try matches(b, row: row, in: transaction)
        case .not(let a): return try !matches(a, row: row, in: transaction)
        case .test(let steps, let test):
            guard let bytes = try end(steps, row: row, in: transaction) else { return false }
            guard let outcome = test(bytes) else { throw undecodable() }
            return outcome
        case .elements(let steps, let quantifier, let elementTest, let mapPart):
            guard let bytes = try end(steps, row: row, in: transaction), let list = bytes else { return false }
            var all = try elements(list)
            if let part = mapPart { all = stride(from: part == .keys ? 0 : 1, to: all.count, by: 2).map { all[$0] } }
            for element in all {
                let outcome: Bool
                switch elementTest {
                case .value(let test):
                    guard let result = test(element) else { throw undecodable() }
                    outcome = result
                case .object(let type, let inner):
                    guard let element, let target = try linkedRow(element, type: type, in: transaction) else {
                        continue
                    }
                    outcome = try matches(inner, row: target, in: transaction)
                }
                if let answer = quantifier.decided(by: outcome) { return answer }
            }
            return quantifier.whenUndecided
        case .count(let steps, let inner, let test):
            guard let bytes = try end(steps, row: row, in: transaction), let list = bytes else { return false }
            let all = try elements(list)
            var count = all.count
            if let inner {
                count = 0
                for element in all {
                    guard let element, let target = try linkedRow(element, type: inner.type, in: transaction) else {
                        continue
                    }
                    if try matches(inner.condition, row: target, in: transaction) { count += 1 }
                }
            } else if case .map = stored.types[steps[steps.count - 1].type].properties[steps[steps.count - 1].property]
                .type
            {
                count /= 2
            }
            var littleEndian = Int64(count).littleEndian
            guard let outcome = Swift.withUnsafeBytes(of: &littleEndian, { test($0) }) else { throw undecodable() }
            return outcome
        case .aggregate(let steps, let aggregate, let elementType, let property, let test):
            guard let bytes = try end(steps, row: row, in: transaction), let list = bytes else { return false }
            var numbers: [Double] = []
            for element in try elements(list) {
                var value = element
                var type = elementType
                if let property {
                    guard let element, let target = try linkedRow(element, type: property.type, in: transaction) else {
                        continue
                    }
                    value = try column(target, property)
                    type = stored.types[property.type].properties[property.property].type
                }
                guard let value else { continue }
                guard let number = PredicateEvaluator.number(value, type: type) else { throw undecodable() }
                numbers.append(number)
            }
            return test(aggregate.value(of: numbers))
        }
    }

    private func elements(_ bytes: UnsafeRawBufferPointer) throws(StoreError) -> [UnsafeRawBufferPointer?] {
        do {
            return try ListFormat.elements(bytes)
        } catch {
            throw .corrupted("a damaged collection: \(error)")
        }
    }
}
