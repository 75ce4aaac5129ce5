import Foundation

/// Compiles a parsed query against a model type's schema into the engine's conditions and stages:
/// every name is looked up and every value converted to its property's type here, once, so that a
/// wrong name, a value of the wrong type or an operator a type lacks is `.invalidArgument` naming the
/// position and the property, and evaluation is the same as the closure form's.
struct QueryCompiler {
    let text: String
    let arguments: [Any?]
    /// For a file read without model classes (a `DynamicStore`): its stored types' schemas by name,
    /// where links through them lead.
    var storedSchemas: [String: ObjectSchema] = [:]

    func fail(_ message: String, at position: Int) -> StoreError {
        .invalidArgument("query \"\(text)\", at \(position): \(message)")
    }

    // MARK: Values

    /// The value of an operand that is no key path: a literal or an argument.
    func value(_ operand: QueryOperand) throws(StoreError) -> Any? {
        switch operand {
        case .literal(let value, _): return value
        case .argument(let number, let position):
            guard arguments.indices.contains(number) else {
                throw fail("$\(number) has no argument (\(arguments.count) given)", at: position)
            }
            return DynamicValue.unwrap(arguments[number])
        case .list(let elements, _):
            var values: [Any?] = []
            for element in elements { values.append(try value(element)) }
            return values
        case .keyPath(let names, let position):
            throw fail("\(QuerySyntax.text(of: names)) is a property where a value is expected", at: position)
        case .subqueryCount(_, _, _, let position):
            throw fail("SUBQUERY where a value is expected", at: position)
        }
    }

    /// `value` as the bytes of a column of `type` (nil for nil).
    func operandBytes(_ value: Any?, type: PropertyType, position: Int, property: String) throws(StoreError)
        -> [UInt8]?
    {
        guard let value = DynamicValue.unwrap(value) else { return nil }
        var encoder = _RowEncoder()
        encoder.beginRow(columns: 1)
        do throws(StoreError) {
            try DynamicValue.encodeColumn(value, type: type.unwrapped, into: &encoder) { (_, _) throws(StoreError) in
                throw .invalidArgument("a link")
            }
        } catch {
            throw fail("\(value) (\(Swift.type(of: value))) is not a \(type.unwrapped) for \(property)", at: position)
        }
        return encoder.withRow { bytes in
            (try? RowView(encoded: bytes, columns: 1).column(0)).flatMap { $0.map { Array($0) } }
        }
    }

    // MARK: Conditions

    func compile(_ node: QueryNode, in schema: ObjectSchema) throws(StoreError) -> Predicate {
        switch node {
        case .constant(let value): return .constant(value)
        case .and(let lhs, let rhs): return .and(try compile(lhs, in: schema), try compile(rhs, in: schema))
        case .or(let lhs, let rhs): return .or(try compile(lhs, in: schema), try compile(rhs, in: schema))
        case .not(let inner): return .not(try compile(inner, in: schema))
        case .between(let subject, let low, let high, let position):
            let lower = QueryNode.comparison(
                subject, .greaterOrEqual, low, options: [], quantifier: nil, position: position)
            let upper = QueryNode.comparison(
                subject, .lessOrEqual, high, options: [], quantifier: nil, position: position)
            return .and(try compile(lower, in: schema), try compile(upper, in: schema))
        case .comparison(let lhs, let op, let rhs, let options, let quantifier, let position):
            if case .subqueryCount(let collection, let variable, let inner, let subqueryPosition) = lhs {
                return try subqueryCount(collection, variable, inner, op, rhs, in: schema, position: subqueryPosition)
            }
            if op == .in, case .keyPath = rhs, !lhs.isKeyPath {
                // `$0 IN tags`: a value in a collection property (RQL), as `ANY tags == $0`.
                return try compile(
                    .comparison(rhs, .equal, lhs, options: options, quantifier: quantifier, position: position),
                    in: schema)
            }
            let (names, operand, op) = try propertyFirst(lhs, op, rhs, position: position)
            let operandValue = try value(operand)
            let text = "\(QuerySyntax.text(of: names)) \(op) \(operandValue.map { "\($0)" } ?? "nil")"
            switch try resolve(names, in: schema, position: position) {
            case .property(let path, let type):
                guard quantifier == nil else { throw fail("ANY, ALL and NONE need a collection", at: position) }
                return try comparison(path, type, op, operandValue, options: options, text: text, position: position)
            case .count(let path):
                let test = try elementTest(
                    .int64, op, operandValue, options: options, position: position, property: "\(path).@count")
                return .collection(
                    CollectionCondition(path: path, kind: .count(nil, target: nil, test: test), text: text))
            case .aggregate(let path, let aggregate, let element, let property):
                let bound = try numberTest(op, operandValue, position: position, property: "\(path)")
                return .collection(
                    CollectionCondition(
                        path: path,
                        kind: .aggregate(aggregate, elementType: element, targetProperty: property, test: bound),
                        text: text))
            case .length(let path):
                guard quantifier == nil else { throw fail("ANY, ALL and NONE need a collection", at: position) }
                let test = try lengthTest(op, operandValue, options: options, position: position, property: "\(path)")
                return .comparison(Comparison(path: path, test: test, access: nil, text: text))
            case .linking(let origin, let property, let rest):
                return try linkingCondition(
                    origin, property, rest, op, operand, operandValue, options: options, quantifier: quantifier,
                    text: text, position: position)
            case .mapElements(let path, let part, let element):
                if case .link = element { throw fail("\(path).@values holds objects: not in queries", at: position) }
                let test = try elementTest(
                    element, op, operandValue, options: options, position: position, property: "\(path)")
                return .collection(
                    CollectionCondition(
                        path: path, kind: .values(CollectionCondition.Quantifier(quantifier), test), text: text,
                        mapPart: part))
            case .elements(let path, let element, let rest):
                let quantifier = CollectionCondition.Quantifier(quantifier)
                if case .link(let target) = element {
                    let targetSchema = try linkedSchema(target, from: path.steps.last!.schema, position: position)
                    guard !rest.isEmpty else {
                        // `ANY dogs == $0`: the elements compared with a stored object (its key).
                        let test = try linkTest(
                            op, operandValue, target: target, position: position, property: "\(path)")
                        return .collection(CollectionCondition(path: path, kind: .values(quantifier, test), text: text))
                    }
                    let inner = try compile(
                        .comparison(
                            .keyPath(rest, position: position), op, operand, options: options, quantifier: nil,
                            position: position), in: targetSchema)
                    return .collection(
                        CollectionCondition(
                            path: path, kind: .objects(quantifier, inner, target: targetSchema), text: text))
                }
                guard rest.isEmpty else { throw fail("\(path) holds \(element) values, not objects", at: position) }
                let test = try elementTest(
                    element, op, operandValue, options: options, position: position, property: "\(path)")
                return .collection(CollectionCondition(path: path, kind: .values(quantifier, test), text: text))
            }
        }
    }

    /// A condition on a `LinkingObjects` property: `walkers.@count`, `ANY walkers.name == …`,
    /// `walkers.@sum.age`.
    private func linkingCondition(
        _ origin: ObjectSchema, _ property: String, _ rest: [String], _ op: QueryOperator, _ operand: QueryOperand,
        _ value: Any?, options: QueryStringOptions, quantifier: QueryNode.Quantifier?, text: String, position: Int
    ) throws(StoreError) -> Predicate {
        let linking = (origin: origin, property: property)
        guard let first = rest.first else {
            throw fail("a LinkingObjects property: compare its @count or a property of its objects", at: position)
        }
        let kind: CollectionCondition.Kind
        switch first.lowercased() {
        case "@count", "@size":
            let test = try valueTest(.int64, op, value, options: options, position: position, property: "@count").test
            kind = .count(nil, target: origin, test: test)
        case "@sum", "@avg", "@min", "@max":
            guard rest.count == 2, let index = origin.properties.firstIndex(where: { $0.name == rest[1] }),
                PredicateEvaluator.isNumeric(origin.properties[index].type),
                let aggregate = CollectionCondition.Aggregate(operatorName: first)
            else { throw fail("\(first) needs a number property of \(origin.name)", at: position) }
            kind = .aggregate(
                aggregate, elementType: .link(origin.name), targetProperty: (origin, index),
                test: try numberTest(op, value, position: position, property: text))
        default:
            let inner = try compile(
                .comparison(
                    .keyPath(rest, position: position), op, operand, options: options, quantifier: nil,
                    position: position), in: origin)
            kind = .objects(CollectionCondition.Quantifier(quantifier), inner, target: origin)
        }
        return .collection(CollectionCondition(path: PropertyPath(), kind: kind, text: text, linking: linking))
    }

    /// A comparison with its key path first (`3 < age` is `age > 3`): the key path's names, the
    /// operand and the operator.
    func propertyFirst(_ lhs: QueryOperand, _ op: QueryOperator, _ rhs: QueryOperand, position: Int)
        throws(StoreError) -> (names: [String], operand: QueryOperand, op: QueryOperator)
    {
        if case .keyPath(let names, _) = lhs { return (names, rhs, op) }
        if case .keyPath(let names, _) = rhs, let swapped = op.swapped { return (names, lhs, swapped) }
        throw fail("a comparison needs a property on one side", at: position)
    }

    private func subqueryCount(
        _ collection: [String], _ variable: String, _ inner: QueryNode, _ op: QueryOperator, _ rhs: QueryOperand,
        in schema: ObjectSchema, position: Int
    ) throws(StoreError) -> Predicate {
        let path: PropertyPath
        let targetSchema: ObjectSchema
        var linking: (origin: ObjectSchema, property: String)?
        switch try resolve(collection, in: schema, position: position) {
        case .elements(let elements, .link(let target), let rest) where rest.isEmpty:
            path = elements
            targetSchema = try linkedSchema(target, from: elements.steps.last!.schema, position: position)
        case .linking(let origin, let property, let rest) where rest.isEmpty:
            (path, targetSchema, linking) = (PropertyPath(), origin, (origin, property))
        default:
            throw fail("SUBQUERY needs a List or MutableSet of objects, or a LinkingObjects", at: position)
        }
        let condition = try compile(Self.strippingVariable(variable, from: inner), in: targetSchema)
        let test = try elementTest(.int64, op, try value(rhs), options: [], position: position, property: "SUBQUERY")
        let name = linking.map { "\($0.origin.name).\($0.property)" } ?? "\(path)"
        return .collection(
            CollectionCondition(
                path: path, kind: .count(condition, target: targetSchema, test: test), text: "SUBQUERY(\(name)).@count",
                linking: linking))
    }

    /// The condition with `$x.name` key paths read as `name` (the element's own properties).
    static func strippingVariable(_ variable: String, from node: QueryNode) -> QueryNode {
        func strip(_ operand: QueryOperand) -> QueryOperand {
            if case .keyPath(let names, let position) = operand, names.first == variable {
                return .keyPath(Array(names.dropFirst()), position: position)
            }
            return operand
        }
        switch node {
        case .constant: return node
        case .and(let a, let b): return .and(strippingVariable(variable, from: a), strippingVariable(variable, from: b))
        case .or(let a, let b): return .or(strippingVariable(variable, from: a), strippingVariable(variable, from: b))
        case .not(let a): return .not(strippingVariable(variable, from: a))
        case .between(let subject, let low, let high, let position):
            return .between(strip(subject), strip(low), strip(high), position: position)
        case .comparison(let lhs, let op, let rhs, let options, let quantifier, let position):
            return .comparison(strip(lhs), op, strip(rhs), options: options, quantifier: quantifier, position: position)
        }
    }

    /// A comparison of a property (maybe through links) with a value.
    private func comparison(
        _ path: PropertyPath, _ type: PropertyType, _ op: QueryOperator, _ value: Any?, options: QueryStringOptions,
        text: String, position: Int
    ) throws(StoreError) -> Predicate {
        if op == .text {
            guard type.unwrapped == .string, let needle = value as? String else {
                throw fail("TEXT needs a String property and a string, \(path) is \(type)", at: position)
            }
            do {
                return .comparison(try FullTextCondition.comparison(path, needle, lenient: false))
            } catch {
                throw fail(error.description, at: position)
            }
        }
        if case .link(let target) = type {
            let test = try linkTest(op, value, target: target, position: position, property: "\(path)")
            return .comparison(Comparison(path: path, test: test, access: nil, text: text))
        }
        let property = "\(path)"
        let built = try valueTest(
            type, op, value, options: options, position: position, property: property,
            throughLink: path.steps.count > 1)
        if let mapKey = path.mapKey {
            // The value under the key (nil when absent): no index and no column predicate serve it.
            let test = PropertyPath.testing(valueUnder: mapKey, built.test)
            return .comparison(Comparison(path: path, test: test, access: nil, text: text))
        }
        let made = Comparison(
            path: path, test: built.test, access: built.access, text: text, columnPredicate: built.predicate)
        made.form = try form(type, op, value, options: options, position: position, property: property)
        return .comparison(made)
    }

    /// The comparison as data (`ComparisonForm`), with the operand as `valueTest` converted it.
    private func form(
        _ type: PropertyType, _ op: QueryOperator, _ value: Any?, options: QueryStringOptions, position: Int,
        property: String
    ) throws(StoreError) -> ComparisonForm {
        let operand: ComparisonForm.Operand
        switch op {
        case .in:
            var operands: [[UInt8]?] = []
            for element in value as? [Any?] ?? [] {
                operands.append(try operandBytes(element, type: type, position: position, property: property))
            }
            operand = .columns(operands)
        case .beginsWith, .endsWith, .contains, .like:
            operand = .text(value as? String ?? "")
        default:
            operand = .column(try operandBytes(value, type: type, position: position, property: property))
        }
        return ComparisonForm(operator: op, operand: operand, options: options)
    }

    private func elementTest(
        _ type: PropertyType, _ op: QueryOperator, _ value: Any?, options: QueryStringOptions, position: Int,
        property: String
    ) throws(StoreError) -> ColumnTest {
        try valueTest(type, op, value, options: options, position: position, property: property).test
    }

    /// The test of `op value` on a column (or element) of `type`: compiled for the bytes when the
    /// type allows, else on the decoded value; with the index access it allows.
    /// `throughLink`: the column is reached through a link; there, as in Realm, nil never matches an
    /// ordering comparison (on the type's own `String?` column nil sorts before every string).
    func valueTest(
        _ type: PropertyType, _ op: QueryOperator, _ value: Any?, options: QueryStringOptions, position: Int,
        property: String, throughLink: Bool = false
    ) throws(StoreError) -> (test: ColumnTest, predicate: ColumnPredicate?, access: IndexAccess?) {
        let ordersNil = type == .optional(.string) && !throughLink
        switch op {
        case .in:
            guard let values = value as? [Any?] else {
                throw fail("IN needs a list {a, b} or an array argument for \(property)", at: position)
            }
            var operands: [[UInt8]?] = []
            for element in values {
                operands.append(try operandBytes(element, type: type, position: position, property: property))
            }
            let access = IndexAccess.oneOf(operands.map { Operand(bytes: $0) })
            if let order = ColumnOrder(type), let predicate = ColumnPredicate(oneOf: operands, order: order) {
                return (predicate.test, predicate, access)
            }
            let tests = try operands.map { (bytes) throws(StoreError) in
                try decodedTest(type, .equal, bytes, position: position, property: property)
            }
            return (
                { bytes in
                    for test in tests {
                        guard let outcome = test(bytes) else { return nil }
                        if outcome { return true }
                    }
                    return false
                }, nil, access
            )
        case .equal where !options.isEmpty && type.unwrapped == .string && value is String,
            .notEqual where !options.isEmpty && type.unwrapped == .string && value is String:
            // `==[c]`, `!=[d]`: the folded forms compared (nil equals no string).
            let match = StringMatch(.equal, value as? String ?? "", options: options)
            let predicate = ColumnPredicate(text: match, negated: op == .notEqual)
            return (predicate.test, predicate, nil)
        case .beginsWith, .endsWith, .contains, .like:
            guard type.unwrapped == .string else {
                throw fail("\(op) needs a String property, \(property) is \(type)", at: position)
            }
            guard let needle = value as? String else {
                throw fail("\(op) needs a string for \(property)", at: position)
            }
            var access: IndexAccess?
            if op == .beginsWith, options.isEmpty {
                access = .range(
                    lower: Operand(bytes: Array(needle.utf8)), upper: Operand(bytes: Array(needle.utf8) + [0xFF]))
            }
            let predicate = StringMatch(op, needle, options: options).columnPredicate
            return (predicate.test, predicate, access)
        default:
            let bytes = try operandBytes(value, type: type, position: position, property: property)
            guard let operatorValue = ComparisonOperator(op) else { throw fail("\(op) on \(property)", at: position) }
            if !operatorValue.isEquality, ColumnOrder(type) == nil, !Self.isOrdered(type) {
                throw fail("\(op) needs an ordered type, \(property) is \(type)", at: position)
            }
            var access: IndexAccess?
            let operand = Operand(bytes: bytes)
            switch operatorValue {
            case .equal: access = .equal(operand)
            case .less, .lessOrEqual: access = bytes == nil ? nil : .range(lower: nil, upper: operand)
            case .greater, .greaterOrEqual: access = bytes == nil ? nil : .range(lower: operand, upper: nil)
            case .notEqual: access = nil
            }
            if let order = ColumnOrder(type),
                let predicate = ColumnPredicate(operatorValue, operand: bytes, order: order, ordersNil: ordersNil)
            {
                return (predicate.test, predicate, access)
            }
            return (try decodedTest(type, operatorValue, bytes, position: position, property: property), nil, access)
        }
    }

    /// Decimal, Decimal128, ObjectId and AnyValue compare as their Swift values.
    private static func isOrdered(_ type: PropertyType) -> Bool {
        switch type.unwrapped {
        case .decimal, .decimal128, .objectId: true
        default: false
        }
    }

    /// A test on the decoded value (types without a byte order).
    private func decodedTest(
        _ type: PropertyType, _ op: ComparisonOperator, _ operand: [UInt8]?, position: Int, property: String
    ) throws(StoreError) -> ColumnTest {
        if type.unwrapped == .mixed {
            // Compared as stored: a linked object cannot be made without a Store (`MixedComparison`).
            guard let key = MixedComparison.key(ofOperand: operand) else {
                throw fail("undecodable operand for \(property)", at: position)
            }
            return MixedComparison.test(op, key)
        }
        guard let swiftType = DynamicValue.swiftType(type.unwrapped) else {
            throw fail("\(property) (\(type)) cannot be compared in a query", at: position)
        }
        let context = _DecodeContext(owner: nil, column: 0)
        let decodedOperand: (any _PersistableValue)? = try operand.map { (bytes) throws(StoreError) in
            guard
                let value = try bytes.withBytes({ (raw) throws(StoreError) in
                    try swiftType._strataDecodeValue(raw, in: context)
                })
            else { throw fail("undecodable operand for \(property)", at: position) }
            return value
        }
        return { bytes in
            guard let bytes else { return op.isEquality ? (decodedOperand == nil) == (op == .equal) : false }
            guard let stored = try? swiftType._strataDecodeValue(bytes, in: context) else { return nil }
            guard let decodedOperand else { return op == .notEqual }
            guard let order = Self.queryOrder(stored, decodedOperand) else { return op == .notEqual }
            return op.holds(order)
        }
    }

    /// The query order of two values of one type (nil when they do not compare).
    static func queryOrder(_ lhs: any _PersistableValue, _ rhs: any _PersistableValue) -> Int? {
        func open<T: _PersistableValue>(_ lhs: T) -> Int? {
            guard let rhs = rhs as? T else { return nil }
            if let comparable = lhs as? any _QueryComparable, let other = rhs as? any _QueryComparable {
                return compareOpened(comparable, other)
            }
            if let equatable = lhs as? any _QueryEquatable, let other = rhs as? any _QueryEquatable {
                return equalOpened(equatable, other) ? 0 : 1
            }
            return nil
        }
        return open(lhs)
    }

    private static func compareOpened<T: _QueryComparable>(_ lhs: T, _ rhs: any _QueryComparable) -> Int? {
        (rhs as? T).map { T._queryCompare(lhs, $0) }
    }

    private static func equalOpened<T: _QueryEquatable>(_ lhs: T, _ rhs: any _QueryEquatable) -> Bool {
        (rhs as? T).map { T._queryEqual(lhs, $0) } ?? false
    }

    /// The test of an aggregate (a Double, nil for the minimum or maximum of none) against a number.
    func numberTest(_ op: QueryOperator, _ value: Any?, position: Int, property: String) throws(StoreError)
        -> (Double?) -> Bool
    {
        guard
            let number = (value as? any BinaryInteger).map({ Double($0) }) ?? (value as? Double)
                ?? (value as? Float).map(Double.init) ?? (value as? Decimal128)?.doubleValue
        else { throw fail("\(property) compares with a number, not \(value ?? "nil")", at: position) }
        guard let op = ComparisonOperator(op) else { throw fail("\(op) on an aggregate", at: position) }
        return { aggregate in aggregate.map { op.holds(ColumnOrder.order($0, number)) } ?? (op == .notEqual) }
    }
}
