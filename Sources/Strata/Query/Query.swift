/// A type-safe query over objects of a model type, built from key paths in `Results.where`.
///
/// ```swift
/// let found = store.objects(Person.self).where {
///     $0.age >= 18 && ($0.name.starts(with: "A") || !$0.active)
/// }
/// let rexOwners = store.objects(Person.self).where { $0.dogs.count > 0 && $0.email != nil }
/// let byOwner = store.objects(Dog.self).where { $0.owner.name == "Ann" }   // through a link
/// let some = store.objects(Person.self).where { $0.id.in([1, 2, 3]) }
/// ```
/// `$0.name` is a `Query<String>` standing for the property; comparing it with a value gives a
/// `Query<Bool>`, a condition. Conditions combine with `&&`, `||` and `!`.
///
/// Semantics:
/// - Strings compare by their UTF-8 bytes (`==`, `<`, `starts(with:)`…), as Realm and SQLite's BINARY
///   collation do; `.caseInsensitive` compares `lowercased()` forms.
/// - Comparing nil with `<`, `<=`, `>`, `>=` is false, except for a `String?` property of the type
///   itself: there nil sorts before every string, as in Realm (through a link, a nil string never
///   matches an ordering comparison, as in Realm too); `== nil` and `!= nil` test for nil.
/// - Through a nil link (`$0.owner.name == "Ann"` for a dog without owner) every comparison is false.
/// - Equality, `in` and ranges (`<`, `<=`, `>`, `>=`, case-sensitive `starts(with:)`) on the primary
///   key or an `indexed:` property use that index (see `Results.queryPlan`); everything else scans.
///
/// - Warning: A key path must name one `@Persisted` property; anything else traps.
@dynamicMemberLookup
public struct Query<Value> {
    /// A `LinkingObjects` property: the origin type and its link property.
    typealias Linking = (origin: ObjectSchema, property: String)

    enum Node {
        case path(PropertyPath)
        case predicate(Predicate)
        /// An aggregate of a collection's elements (`$0.dogs.sum(of: \.age)`), compared as a Double.
        case aggregate(
            PropertyPath, CollectionCondition.Aggregate, targetProperty: (ObjectSchema, Int)?, linking: Linking?)
        /// The number of objects of a collection of objects at the end of the path, or of a
        /// `LinkingObjects` of the row, that satisfy a condition (all when nil), compared as an Int:
        /// `$0.walkers.count`, `$0.dogs.count { $0.age < 2 }`.
        case objectCount(PropertyPath, condition: Predicate?, target: ObjectSchema, linking: Linking?)
        /// A `LinkingObjects` of the row (`$0.walkers`).
        case linking(Linking)
    }

    let node: Node

    init(_ node: Node) {
        self.node = node
    }

    var path: PropertyPath {
        switch node {
        case .path(let path), .aggregate(let path, _, _, _), .objectCount(let path, _, _, _): return path
        case .linking: return PropertyPath()
        case .predicate: preconditionFailure("Strata: a query used a condition where it needs a property")
        }
    }

    private func member<Root: Object, V>(_ keyPath: KeyPath<Root, V>) -> Query<V> {
        let place = QueryBuilding.callSite.map { "in the where { } at \($0)" } ?? ""
        let schema: ObjectSchema
        do {
            schema = try ObjectSchema.of(Root.self)
        } catch {
            preconditionFailure(Self.pastStoredValueMessage(keyPath, after: path, place: place))
        }
        var extended = path
        extended.steps += KeyPathResolver.pathOrTrap(keyPath, in: schema, place: place).steps
        return Query<V>(.path(extended))
    }
}

extension Query {
    /// Why `keyPath`, read after `path` (`$0.name.count`: `\String.count` after `name`), cannot be
    /// queried: it reads a member of a stored value, not a `@Persisted` property.
    fileprivate static func pastStoredValueMessage(_ keyPath: AnyKeyPath, after path: PropertyPath, place: String)
        -> String
    {
        let root = path.steps.first.map { $0.schema.name + "." } ?? ""
        let valueType = Swift.type(of: keyPath).rootType
        return "Strata: \(root)\(path) then \(keyPath)\(place.isEmpty ? "" : " (\(place))") is not a @Persisted "
            + "property: it reads a member of the stored \(valueType) value, which a query cannot compare; a where { } "
            + "compares @Persisted properties (filter { } runs Swift on each object)"
    }
}

/// Where the `where { }` being built was written, for the messages of its traps.
enum QueryBuilding {
    @TaskLocal static var callSite: String?
}

extension Query where Value: Object {
    /// A stored property of the queried type.
    public subscript<V: _Persistable>(dynamicMember keyPath: KeyPath<Value, V>) -> Query<V> {
        member(keyPath)
    }
}

extension Query {
    /// Not available: a key path past a stored property's value (`$0.name.count`, `$0.age.magnitude`)
    /// names no `@Persisted` property, so a query cannot read it.
    @available(
        *, unavailable,
        message:
            "a where { } compares @Persisted properties; this reads a member of a stored value (use filter { } to run Swift on each object)"
    )
    public subscript<V>(dynamicMember keyPath: KeyPath<Value, V>) -> Query<V> {
        fatalError("unavailable")
    }
}

extension Query where Value: _QueryLink {
    /// A stored property of the linked object (`$0.owner.name`). A nil link matches nothing.
    public subscript<V: _Persistable>(dynamicMember keyPath: KeyPath<Value._Target, V>) -> Query<V> {
        member(keyPath)
    }

    /// Whether the link is nil.
    public static func == (lhs: Query, rhs: _OptionalNilComparisonType) -> Query<Bool> {
        lhs.comparison("\(lhs.path) == nil", access: nil) { $0 == nil }
    }

    /// Whether the link is set.
    public static func != (lhs: Query, rhs: _OptionalNilComparisonType) -> Query<Bool> {
        lhs.comparison("\(lhs.path) != nil", access: nil) { $0 != nil }
    }
}

// MARK: Building conditions

extension Query {
    /// A condition testing the raw bytes of the property's column.
    func comparison(
        _ text: String, access: IndexAccess?, _ test: @escaping (UnsafeRawBufferPointer?) -> Bool?,
        columnPredicate: ColumnPredicate? = nil
    ) -> Query<Bool> {
        if case .objectCount(let path, let condition, let target, let linking) = node {
            return Query<Bool>(
                .predicate(
                    .collection(
                        CollectionCondition(
                            path: path, kind: .count(condition, target: target, test: test), text: text,
                            linking: linking))))
        }
        if case .aggregate(let path, let aggregate, let targetProperty, let linking) = node {
            // The aggregate as a Double column's bytes, for the test `Query<Double>` built.
            let aggregateTest: (Double?) -> Bool = { value in
                guard let value else { return test(nil) ?? false }
                var bits = value.bitPattern.littleEndian
                return Swift.withUnsafeBytes(of: &bits) { test($0) } ?? false
            }
            let element = path.steps.last.map { $0.schema.properties[$0.property].type } ?? .double
            let elementType: PropertyType =
                switch element {
                case .list(let inner), .set(let inner): inner
                default: element
                }
            return Query<Bool>(
                .predicate(
                    .collection(
                        CollectionCondition(
                            path: path,
                            kind: .aggregate(
                                aggregate, elementType: elementType, targetProperty: targetProperty, test: aggregateTest
                            ),
                            text: text, linking: linking))))
        }
        guard let mapKey = path.mapKey else {
            return Query<Bool>(
                .predicate(
                    .comparison(
                        Comparison(path: path, test: test, access: access, text: text, columnPredicate: columnPredicate)
                    )))
        }
        // `map["key"]`: the test sees the value under the key (nil when absent); no index serves it.
        let valueTest = PropertyPath.testing(valueUnder: mapKey, test)
        return Query<Bool>(.predicate(.comparison(Comparison(path: path, test: valueTest, access: nil, text: text))))
    }
}

extension Query where Value: _Persistable {
    /// A condition testing the property's decoded value.
    func valueTest(
        _ text: String, access: IndexAccess? = nil, _ test: @escaping (Value) -> Bool
    ) -> Query<Bool> {
        comparison(text, access: access) { bytes in
            // Not `try?`: a `Value?` in this generic closure would look its metadata up on every row.
            do {
                return test(try Value._strataDecodeColumn(bytes, in: _DecodeContext(owner: nil, column: 0)))
            } catch {
                return nil  // undecodable, which evaluation reports as `.corrupted`
            }
        }
    }
}

extension Query where Value: _Persistable {
    /// The order of the compared column's stored bytes, when `Value` orders as they do
    /// (`ColumnOrderedValue`): the comparison then reads them in place (`ColumnPredicate`).
    var columnOrder: ColumnOrder? {
        if case .aggregate = node { return .double }
        if case .objectCount = node { return .signed(width: 8) }
        guard Value.self is any ColumnOrderedValue.Type, let type = path.comparedType else { return nil }
        return ColumnOrder(type)
    }

    /// `operator` against `operand`, compiled for the column's bytes; nil when the values must be
    /// decoded to compare.
    func columnComparison(
        _ operator: ComparisonOperator, _ operand: Operand?, text: String, access: IndexAccess?, ordersNil: Bool = false
    ) -> Query<Bool>? {
        guard let order = columnOrder, let operand,
            let predicate = ColumnPredicate(`operator`, operand: operand.bytes, order: order, ordersNil: ordersNil)
        else { return nil }
        return comparison(text, access: access, predicate.test, columnPredicate: predicate)
    }
}

extension Query where Value: _QueryEquatable {
    /// `value` in a comparison's form: its column's bytes, nil for nil; nil when it cannot be encoded.
    static func formOperand(_ value: Value, _ operand: Operand?) -> ComparisonForm.Operand? {
        value._queryIsNull ? .column(nil) : operand.map { .column($0.bytes) }
    }

    /// Whether the property equals `rhs` (`== nil` on an optional: whether it is nil). Uses the
    /// primary key or an index when the property has one.
    public static func == (lhs: Query, rhs: Value) -> Query<Bool> {
        let operand = Operand(rhs)
        let text = "\(lhs.path) == \(rhs)"
        let access = operand.map(IndexAccess.equal)
        return
            (lhs.columnComparison(.equal, operand, text: text, access: access)
            ?? lhs.mixedComparison(.equal, rhs, text: text)
            ?? lhs.valueTest(text, access: access) { Value._queryEqual($0, rhs) })
            .declaring(.equal, formOperand(rhs, operand))
    }

    /// Whether the property differs from `rhs` (`!= nil`: whether it is set). Always scans.
    public static func != (lhs: Query, rhs: Value) -> Query<Bool> {
        let text = "\(lhs.path) != \(rhs)"
        let operand = Operand(rhs)
        return
            (lhs.columnComparison(.notEqual, operand, text: text, access: nil)
            ?? lhs.mixedComparison(.notEqual, rhs, text: text)
            ?? lhs.valueTest(text) { !Value._queryEqual($0, rhs) })
            .declaring(.notEqual, formOperand(rhs, operand))
    }

    /// Whether the property equals one of `values`.
    public func `in`(_ values: some Sequence<Value>) -> Query<Bool> {
        let candidates = Array(values)
        let operands = candidates.compactMap { Operand($0) }  // not `Operand.init`: it captured the metatype
        let access = operands.count == candidates.count ? IndexAccess.oneOf(operands) : nil
        let text = "\(path) IN \(candidates)"
        let form: ComparisonForm.Operand? = access != nil ? .columns(operands.map(\.bytes)) : nil
        if access != nil, let order = columnOrder,
            let predicate = ColumnPredicate(oneOf: operands.map(\.bytes), order: order)
        {
            return comparison(text, access: access, predicate.test, columnPredicate: predicate).declaring(.in, form)
        }
        if let mixed = mixedMembership(candidates, text: text) { return mixed.declaring(.in, form) }
        return valueTest(text, access: access) { value in
            candidates.contains { Value._queryEqual(value, $0) }
        }.declaring(.in, form)
    }
}

extension Query where Value: _QueryComparable {
    /// Whether the property sorts before `rhs`. A nil never matches, nor does a comparison with nil,
    /// except for `String?`: there nil sorts before every string, as in Realm (`< "b"` matches nil,
    /// `> nil` every string). Uses the primary key or an index when the property has one, as do `<=`,
    /// `>` and `>=`.
    public static func < (lhs: Query, rhs: Value) -> Query<Bool> {
        lhs.ordered("<", .less, rhs, lower: false) { $0 < 0 }
    }

    /// Whether the property sorts before `rhs` or equals it (nil: as `<`).
    public static func <= (lhs: Query, rhs: Value) -> Query<Bool> {
        lhs.ordered("<=", .lessOrEqual, rhs, lower: false) { $0 <= 0 }
    }

    /// Whether the property sorts after `rhs` (nil: as `<`).
    public static func > (lhs: Query, rhs: Value) -> Query<Bool> {
        lhs.ordered(">", .greater, rhs, lower: true) { $0 > 0 }
    }

    /// Whether the property sorts after `rhs` or equals it (nil: as `<`).
    public static func >= (lhs: Query, rhs: Value) -> Query<Bool> {
        lhs.ordered(">=", .greaterOrEqual, rhs, lower: true) { $0 >= 0 }
    }

    /// A comparison whose operand bounds an index range from below (`lower`) or above. (An index
    /// keeps nil entries first: a range open below includes them, and each candidate is tested.)
    private func ordered(
        _ symbol: String, _ operator: ComparisonOperator, _ rhs: Value, lower: Bool,
        _ holds: @escaping (Int) -> Bool
    ) -> Query<Bool> {
        var access: IndexAccess?
        let operand = Operand(rhs)
        if !rhs._queryIsNull, let operand {
            access = lower ? .range(lower: operand, upper: nil) : .range(lower: nil, upper: operand)
        }
        // nil sorts before every string on the type's own column; through a link it never matches (Realm's).
        let ordersNil = Value._queryOrdersNil && path.steps.count == 1
        let text = "\(path) \(symbol) \(rhs)"
        let form = Self.formOperand(rhs, operand)
        let declared = QueryOperator(`operator`)
        if let compiled = columnComparison(`operator`, operand, text: text, access: access, ordersNil: ordersNil) {
            return compiled.declaring(declared, form)
        }
        if let mixed = mixedComparison(`operator`, rhs, text: text) { return mixed.declaring(declared, form) }
        return valueTest(text, access: access) { value in
            if ordersNil { return holds(Value._queryCompare(value, rhs)) }
            return !value._queryIsNull && !rhs._queryIsNull && holds(Value._queryCompare(value, rhs))
        }.declaring(declared, form)
    }
}

extension Query where Value: _QueryComparable & Comparable {
    /// Whether the property lies in `range`, both bounds included: Realm's `contains(18...30)`, the
    /// string language's `BETWEEN {18, 30}`. Uses an index as `>=` and `<=` do.
    public func contains(_ range: ClosedRange<Value>) -> Query<Bool> {
        self >= range.lowerBound && self <= range.upperBound
    }
}

extension Query where Value: _QueryString {
    /// Whether the string contains `other` (UTF-8 bytes; nil never matches): Realm's `CONTAINS`.
    public func contains(_ other: String, options: StringOptions = []) -> Query<Bool> {
        stringTest(.contains, other, options)
    }

    /// Whether the string starts with `prefix` (UTF-8 bytes; nil never matches): `BEGINSWITH`.
    public func starts(with prefix: String, options: StringOptions = []) -> Query<Bool> {
        var access: IndexAccess?
        if options.isEmpty {
            // Every string with this prefix lies in [prefix, prefix + 0xFF]: UTF-8 never has 0xFF.
            access = .range(
                lower: Operand(bytes: Array(prefix.utf8)), upper: Operand(bytes: Array(prefix.utf8) + [0xFF]))
        }
        return stringTest(.beginsWith, prefix, options, access: access)
    }

    /// Whether the string ends with `suffix` (UTF-8 bytes; nil never matches): `ENDSWITH`.
    public func ends(with suffix: String, options: StringOptions = []) -> Query<Bool> {
        stringTest(.endsWith, suffix, options)
    }

    /// Whether the whole string matches `pattern`, where `*` stands for any run of characters and `?`
    /// for one character (nil never matches): Realm's `LIKE`.
    ///
    /// ```swift
    /// people.where { $0.name.like("A?n*") }                         // "Ann", "Anna", "Anne-Marie"
    /// people.where { $0.name.like("*ANN*", options: .caseInsensitive) }
    /// ```
    public func like(_ pattern: String, options: StringOptions = []) -> Query<Bool> {
        stringTest(.like, pattern, options)
    }

    /// The string language's test (`StringMatch`), so that both forms compare strings alike.
    private func stringTest(
        _ operator: QueryOperator, _ operand: String, _ options: StringOptions, access: IndexAccess? = nil
    ) -> Query<Bool> {
        let match = StringMatch(`operator`, operand, options: QueryStringOptions(rawValue: options.rawValue))
        let suffix =
            options.isEmpty
            ? ""
            : "[\(options.contains(.caseInsensitive) ? "c" : "")\(options.contains(.diacriticInsensitive) ? "d" : "")]"
        let predicate = match.columnPredicate  // the stored bytes matched, no String made per row
        return comparison(
            "\(path) \(`operator`)\(suffix) \"\(operand)\"", access: access, predicate.test, columnPredicate: predicate
        ).declaring(`operator`, .text(operand), options: match.options)
    }
}

extension Query where Value: _QueryList {
    /// The number of elements, to compare: `$0.dogs.count > 2`.
    public var count: Query<Int> {
        var counted = path
        counted.countsList = true
        return Query<Int>(.path(counted))
    }
}

extension Query where Value: _QueryList, Value._Element: Object {
    /// Whether the list holds `object` (a managed object; an unmanaged one is in no list).
    public func contains(_ object: Value._Element) -> Query<Bool> {
        let key: [UInt8]? = object.isManaged ? object._key.withBytes { Array($0) } : nil
        return comparison("\(path) CONTAINS \(Swift.type(of: object))(\(object.primaryKeyDescription))", access: nil) {
            bytes in
            guard let bytes, let elements = try? ListFormat.elements(bytes) else { return nil }  // nil: `.corrupted`
            guard let key else { return false }
            return elements.contains { $0.map { $0.elementsEqual(key) } ?? false }
        }
    }
}

extension Query where Value: _QueryList, Value._Element: _QueryEquatable {
    /// Whether the list holds `element`.
    public func contains(_ element: Value._Element) -> Query<Bool> {
        if let mixed = element as? AnyValue {
            let operand = MixedComparison.key(of: mixed)
            return comparison("\(path) CONTAINS \(element)", access: nil) { bytes in
                // nil: `.corrupted`
                guard let bytes, let elements = try? ListFormat.elements(bytes) else { return nil }
                for part in elements {
                    guard let stored = MixedComparison.key(part) else { return nil }
                    if stored == operand { return true }
                }
                return false
            }
        }
        return comparison("\(path) CONTAINS \(element)", access: nil) { bytes in
            guard let bytes, let elements = try? ListFormat.elements(bytes) else { return nil }  // nil: `.corrupted`
            let context = _DecodeContext(owner: nil, column: 0)
            for part in elements {
                let decoded: Value._Element?
                do {
                    decoded = try Value._Element._strataDecodeElement(part, in: context)
                } catch {
                    return nil
                }
                if let decoded, Value._Element._queryEqual(decoded, element) { return true }
            }
            return false
        }
    }
}

extension Query where Value == Bool {
    /// The condition with its form recorded (`ComparisonForm`), when it is a comparison of a
    /// property's own value (not a Map's value under a key, nor a collection's aggregate).
    func declaring(
        _ operator: QueryOperator, _ operand: ComparisonForm.Operand?, options: QueryStringOptions = []
    ) -> Query<Bool> {
        if let operand, case .predicate(.comparison(let comparison)) = node, comparison.path.mapKey == nil {
            comparison.form = ComparisonForm(operator: `operator`, operand: operand, options: options)
        }
        return self
    }
}

// MARK: Combining conditions

extension Query where Value == Bool {
    /// The condition itself, or, for a Bool property, whether it is true.
    var predicate: Predicate {
        switch node {
        case .predicate(let predicate): return predicate
        case .path, .aggregate, .linking, .objectCount: return (self == true).predicate
        }
    }

    /// Both conditions hold.
    public static func && (lhs: Query, rhs: Query) -> Query {
        Query(.predicate(.and(lhs.predicate, rhs.predicate)))
    }

    /// At least one condition holds (a top-level `||` scans).
    public static func || (lhs: Query, rhs: Query) -> Query {
        Query(.predicate(.or(lhs.predicate, rhs.predicate)))
    }

    /// The condition does not hold.
    public static prefix func ! (operand: Query) -> Query {
        Query(.predicate(.not(operand.predicate)))
    }
}
