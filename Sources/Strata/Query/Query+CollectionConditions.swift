/// Conditions on the objects of a List or MutableSet, in the closure form (Realm's `ANY`, `ALL`,
/// `NONE`, `@sum`, `@avg`, `@min`, `@max`; `count` is on every collection):
///
/// ```swift
/// people.where { $0.dogs.contains { $0.age > 3 } }          // ANY
/// people.where { $0.dogs.allSatisfy { $0.vaccinated } }     // ALL (true for no dogs)
/// people.where { !$0.dogs.contains { $0.name == "Rex" } }    // NONE
/// people.where { $0.dogs.sum(of: \.age) > 10 && $0.dogs.count >= 2 }
/// ```
extension Query where Value: _QueryList, Value._Element: Object {
    /// Whether some element satisfies `condition` (Realm's `ANY`).
    public func contains(where condition: (Query<Value._Element>) -> Query<Bool>) -> Query<Bool> {
        elements(.any, condition)
    }

    /// Whether every element satisfies `condition` (Realm's `ALL`; true for an empty collection).
    public func allSatisfy(_ condition: (Query<Value._Element>) -> Query<Bool>) -> Query<Bool> {
        elements(.all, condition)
    }

    /// The sum of a number property of the elements (0 for none), to compare.
    public func sum<V: _QueryNumeric>(of keyPath: KeyPath<Value._Element, V>) -> Query<Double> {
        aggregate(.sum, keyPath)
    }

    /// The mean of a number property of the elements (nil for none: no comparison matches but `!=`).
    public func average<V: _QueryNumeric>(of keyPath: KeyPath<Value._Element, V>) -> Query<Double> {
        aggregate(.average, keyPath)
    }

    /// The smallest value of a number property of the elements (nil for none).
    public func min<V: _QueryNumeric>(of keyPath: KeyPath<Value._Element, V>) -> Query<Double> {
        aggregate(.minimum, keyPath)
    }

    /// The largest value of a number property of the elements (nil for none).
    public func max<V: _QueryNumeric>(of keyPath: KeyPath<Value._Element, V>) -> Query<Double> {
        aggregate(.maximum, keyPath)
    }

    private var elementSchema: ObjectSchema {
        do {
            return try ObjectSchema.of(Value._Element.self)
        } catch {
            preconditionFailure("Strata: \(Value._Element.self) cannot be queried: \(error)")
        }
    }

    private func elements(
        _ quantifier: CollectionCondition.Quantifier, _ condition: (Query<Value._Element>) -> Query<Bool>
    ) -> Query<Bool> {
        let inner = condition(Query<Value._Element>(.path(PropertyPath()))).predicate
        let word = quantifier == .any ? "ANY" : "ALL"
        return Query<Bool>(
            .predicate(
                .collection(
                    CollectionCondition(
                        path: path, kind: .objects(quantifier, inner, target: elementSchema),
                        text: "\(word) \(path) (\(inner))"))))
    }

    private func aggregate<V: _QueryNumeric>(
        _ aggregate: CollectionCondition.Aggregate, _ keyPath: KeyPath<Value._Element, V>
    )
        -> Query<Double>
    {
        let schema = elementSchema
        let property = KeyPathResolver.pathOrTrap(keyPath, in: schema)
        guard let index = property.directProperty else {
            preconditionFailure("Strata: \(keyPath) is not a number property of \(schema.name) itself")
        }
        return Query<Double>(.aggregate(path, aggregate, targetProperty: (schema, index)))
    }
}
