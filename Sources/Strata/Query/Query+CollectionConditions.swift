/// Conditions on the objects of a List or MutableSet of objects, or of a `LinkingObjects`, in the
/// closure form (Realm's `ANY`, `ALL`, `NONE`, `@sum`, `@avg`, `@min`, `@max`; `count` is on every
/// collection):
///
/// ```swift
/// people.where { $0.dogs.contains { $0.age > 3 } }          // ANY
/// people.where { $0.dogs.allSatisfy { $0.vaccinated } }     // ALL (true for no dogs)
/// people.where { !$0.dogs.contains { $0.name == "Rex" } }    // NONE
/// people.where { $0.dogs.sum(of: \.age) > 10 && $0.dogs.count >= 2 }
/// people.where { $0.dogs.count { $0.age < 2 } >= 2 }            // SUBQUERY(…).@count
/// dogs.where { $0.walkers.count == 0 || $0.walkers.max(of: \.age) < 20 }
/// ```
extension Query where Value: _QueryObjects {
    /// Whether some object satisfies `condition` (Realm's `ANY`).
    public func contains(where condition: (Query<Value._Target>) -> Query<Bool>) -> Query<Bool> {
        objects(.any, condition)
    }

    /// Whether every object satisfies `condition` (Realm's `ALL`; true when there are none).
    public func allSatisfy(_ condition: (Query<Value._Target>) -> Query<Bool>) -> Query<Bool> {
        objects(.all, condition)
    }

    /// The number of objects that satisfy `condition` (Realm's `SUBQUERY(…).@count`), to compare:
    /// `$0.dogs.count { $0.age < 2 && $0.name.starts(with: "R") } >= 2`.
    public func count(where condition: (Query<Value._Target>) -> Query<Bool>) -> Query<Int> {
        let (path, linking, target) = source
        let inner = condition(Query<Value._Target>(.path(PropertyPath()))).predicate
        return Query<Int>(.objectCount(path, condition: inner, target: target, linking: linking))
    }

    /// The sum of a number property of the objects (0 for none), to compare.
    public func sum<V: _QueryNumeric>(of keyPath: KeyPath<Value._Target, V>) -> Query<Double> {
        aggregate(.sum, keyPath)
    }

    /// The mean of a number property of the objects (nil for none: no comparison matches but `!=`).
    public func average<V: _QueryNumeric>(of keyPath: KeyPath<Value._Target, V>) -> Query<Double> {
        aggregate(.average, keyPath)
    }

    /// The smallest value of a number property of the objects (nil for none).
    public func min<V: _QueryNumeric>(of keyPath: KeyPath<Value._Target, V>) -> Query<Double> {
        aggregate(.minimum, keyPath)
    }

    /// The largest value of a number property of the objects (nil for none).
    public func max<V: _QueryNumeric>(of keyPath: KeyPath<Value._Target, V>) -> Query<Double> {
        aggregate(.maximum, keyPath)
    }

    /// Where the objects come from: a collection column at the end of `path`, or the backlinks of a
    /// `LinkingObjects` of the row itself; and their type's schema.
    private var source: (path: PropertyPath, linking: Linking?, target: ObjectSchema) {
        if case .linking(let linking) = node { return (PropertyPath(), linking, linking.origin) }
        do {
            return (path, nil, try ObjectSchema.of(Value._Target.self))
        } catch {
            preconditionFailure("Strata: \(Value._Target.self) cannot be queried: \(error)")
        }
    }

    private func objects(
        _ quantifier: CollectionCondition.Quantifier, _ condition: (Query<Value._Target>) -> Query<Bool>
    ) -> Query<Bool> {
        let (path, linking, target) = source
        let inner = condition(Query<Value._Target>(.path(PropertyPath()))).predicate
        let name = linking.map { "\($0.origin.name).\($0.property)" } ?? "\(path)"
        return Query<Bool>(
            .predicate(
                .collection(
                    CollectionCondition(
                        path: path, kind: .objects(quantifier, inner, target: target),
                        text: "\(quantifier == .any ? "ANY" : "ALL") \(name) (\(inner))", linking: linking))))
    }

    private func aggregate<V: _QueryNumeric>(
        _ aggregate: CollectionCondition.Aggregate, _ keyPath: KeyPath<Value._Target, V>
    )
        -> Query<Double>
    {
        let (path, linking, target) = source
        guard let index = KeyPathResolver.pathOrTrap(keyPath, in: target).directProperty else {
            preconditionFailure("Strata: \(keyPath) is not a number property of \(target.name) itself")
        }
        return Query<Double>(.aggregate(path, aggregate, targetProperty: (target, index), linking: linking))
    }
}

/// Implementation detail: a collection of objects (a List or MutableSet of objects, a
/// `LinkingObjects`), for `contains(where:)`, `allSatisfy` and the aggregates in queries.
public protocol _QueryObjects {
    associatedtype _Target: Object
}

extension List: _QueryObjects where Element: Object {
    public typealias _Target = Element
}

extension MutableSet: _QueryObjects where Element: Object {
    public typealias _Target = Element
}

extension LinkingObjects: _QueryObjects {
    public typealias _Target = Origin
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

extension Query where Value: _QueryObjects, Value: _QueryLinking {
    /// The number of objects linking to the row (`$0.walkers.count`), to compare.
    public var count: Query<Int> {
        guard case .linking(let linking) = node else { preconditionFailure("Strata: not a LinkingObjects") }
        return Query<Int>(.objectCount(PropertyPath(), condition: nil, target: linking.origin, linking: linking))
    }
}

/// Implementation detail: a `LinkingObjects`, for its `count` in queries.
public protocol _QueryLinking {}

extension LinkingObjects: _QueryLinking {}
