/// A property type that holds links (`Dog?`, `List<Dog>`, `MutableSet<Dog>`, `Map<String, Dog?>`),
/// made from the objects `create(_:value:update:)` and `Object(value:)` resolved for it.
protocol LinkHolder {
    /// The value holding `objects` in order, or nil when one is not of the element type (or nil where
    /// a collection cannot hold nil).
    static func holding(_ objects: [Object?]) -> Self?
    /// The Map holding `entries`, or nil as `holding(_:)`.
    static func holding(entries: [(key: String, object: Object?)]) -> Self?
}

extension LinkHolder {
    static func holding(_ objects: [Object?]) -> Self? { nil }
    static func holding(entries: [(key: String, object: Object?)]) -> Self? { nil }
}

extension Optional: LinkHolder where Wrapped: Object {
    static func holding(_ objects: [Object?]) -> Self? {
        guard objects.count == 1 else { return nil }
        guard let object = objects[0] else { return .some(nil) }
        return (object as? Wrapped).map { .some($0) }
    }
}

extension List: LinkHolder where Element: Object {
    static func holding(_ objects: [Object?]) -> List? {
        linkTargets(objects, as: Element.self).map { List($0) }
    }
}

extension MutableSet: LinkHolder where Element: Object {
    static func holding(_ objects: [Object?]) -> MutableSet? {
        linkTargets(objects, as: Element.self).map { MutableSet($0) }
    }
}

/// `objects` as elements of type `T`, or nil when one is nil or of another type.
private func linkTargets<T: Object>(_ objects: [Object?], as type: T.Type) -> [T]? {
    var targets: [T] = []
    targets.reserveCapacity(objects.count)
    for object in objects {
        guard let target = object as? T else { return nil }
        targets.append(target)
    }
    return targets
}

extension Map: LinkHolder where Value: _OptionalLink {
    static func holding(entries: [(key: String, object: Object?)]) -> Map? {
        var values: [Key: Value] = [:]
        for (key, object) in entries {
            // A nil Object? casts to any Optional type; an object of another class casts to none.
            guard let value = object as Any as? Value else { return nil }
            values[Key(_strataMapKey: key)] = value
        }
        return Map(values)
    }
}
