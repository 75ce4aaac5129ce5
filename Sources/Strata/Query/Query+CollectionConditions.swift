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
        return Query<Double>(.aggregate(path, aggregate, targetProperty: (schema, index), linking: nil))
    }
}

/// Implementation detail: a `LinkingObjects`, for `count`, `contains(where:)`, `allSatisfy`, `sum(of:)`…
public protocol _QueryLinking {
    associatedtype _Origin: Object
}

extension LinkingObjects: _QueryLinking {
    public typealias _Origin = Origin
}

extension Query where Value: Object {
    /// A `LinkingObjects` property of the queried type (`$0.walkers`), for `count`, `contains(where:)`,
    /// `allSatisfy` and the aggregates.
    ///
    /// - Warning: Only on the queried type itself: through a link (`$0.owner.walkers`) traps.
    public subscript<Origin: Object>(dynamicMember keyPath: KeyPath<Value, LinkingObjects<Origin>>)
        -> Query<LinkingObjects<Origin>>
    {
        guard path.steps.isEmpty else {
            preconditionFailure(
                "Strata: \(keyPath): a LinkingObjects is queried on the type itself, not through a link")
        }
        // An unmanaged instance's LinkingObjects names its origin property.
        let property = Value()[keyPath: keyPath].originProperty
        do {
            return Query<LinkingObjects<Origin>>(.linking((try ObjectSchema.of(Origin.self), property)))
        } catch {
            preconditionFailure("Strata: \(Origin.self) cannot be queried: \(error)")
        }
    }
}

/// Conditions on the objects linking to each object (Realm's queries on `LinkingObjects`):
///
/// ```swift
/// dogs.where { $0.walkers.count == 0 }
/// dogs.where { $0.walkers.contains { $0.age > 40 } }
/// dogs.where { $0.walkers.max(of: \.age) < 20 }
/// ```
extension Query where Value: _QueryLinking {
    private var linkingProperty: Linking {
        guard case .linking(let linking) = node else { preconditionFailure("Strata: not a LinkingObjects") }
        return linking
    }

    /// The number of linking objects, to compare.
    public var count: Query<Int> { Query<Int>(.linkingCount(linkingProperty)) }

    /// Whether some linking object satisfies `condition` (ANY).
    public func contains(where condition: (Query<Value._Origin>) -> Query<Bool>) -> Query<Bool> {
        linked(.any, condition)
    }

    /// Whether every linking object satisfies `condition` (ALL; true when none links here).
    public func allSatisfy(_ condition: (Query<Value._Origin>) -> Query<Bool>) -> Query<Bool> {
        linked(.all, condition)
    }

    /// The sum of a number property of the linking objects (0 for none), to compare.
    public func sum<V: _QueryNumeric>(of keyPath: KeyPath<Value._Origin, V>) -> Query<Double> {
        aggregate(.sum, keyPath)
    }

    /// The mean of a number property of the linking objects (nil for none).
    public func average<V: _QueryNumeric>(of keyPath: KeyPath<Value._Origin, V>) -> Query<Double> {
        aggregate(.average, keyPath)
    }

    /// The smallest value of a number property of the linking objects (nil for none).
    public func min<V: _QueryNumeric>(of keyPath: KeyPath<Value._Origin, V>) -> Query<Double> {
        aggregate(.minimum, keyPath)
    }

    /// The largest value of a number property of the linking objects (nil for none).
    public func max<V: _QueryNumeric>(of keyPath: KeyPath<Value._Origin, V>) -> Query<Double> {
        aggregate(.maximum, keyPath)
    }

    private func linked(
        _ quantifier: CollectionCondition.Quantifier, _ condition: (Query<Value._Origin>) -> Query<Bool>
    )
        -> Query<Bool>
    {
        let linking = linkingProperty
        let inner = condition(Query<Value._Origin>(.path(PropertyPath()))).predicate
        return Query<Bool>(
            .predicate(
                .collection(
                    CollectionCondition(
                        path: PropertyPath(), kind: .objects(quantifier, inner, target: linking.origin),
                        text:
                            "\(quantifier == .any ? "ANY" : "ALL") \(linking.origin.name).\(linking.property) (\(inner))",
                        linking: linking))))
    }

    private func aggregate<V: _QueryNumeric>(
        _ aggregate: CollectionCondition.Aggregate, _ keyPath: KeyPath<Value._Origin, V>
    ) -> Query<Double> {
        let linking = linkingProperty
        guard let index = KeyPathResolver.pathOrTrap(keyPath, in: linking.origin).directProperty else {
            preconditionFailure("Strata: \(keyPath) is not a number property of \(linking.origin.name) itself")
        }
        return Query<Double>(
            .aggregate(PropertyPath(), aggregate, targetProperty: (linking.origin, index), linking: linking))
    }
}
