/// Queries on a Map's entries and a MutableSet's elements (a MutableSet also has the List forms:
/// `.count`, `.contains`).
///
/// ```swift
/// contacts.where { $0.phones["home"] == "555-0100" }        // the value under a key (nil: absent)
/// contacts.where { $0.phones.keys.contains("work") }
/// contacts.where { $0.phones.values.contains("555-0100") }
/// contacts.where { $0.phones.count > 1 && $0.tags.contains("vip") }
/// ```
extension Query where Value: _QueryMap, Value._MapValueType: _PersistableValue {
    /// The value under `key`, to compare (`== nil`: the key is absent).
    public subscript(key: String) -> Query<Value._MapValueType?> {
        Query<Value._MapValueType?>(.path(keyed(key)))
    }
}

extension Query where Value: _QueryMap, Value._MapValueType: _QueryOptionalValue {
    /// The value under `key`, to compare (`== nil`: the key is absent, or its value nil).
    public subscript(key: String) -> Query<Value._MapValueType> {
        Query<Value._MapValueType>(.path(keyed(key)))
    }
}

extension Query where Value: _QueryMap {
    fileprivate func keyed(_ key: String) -> PropertyPath {
        var keyed = path
        keyed.mapKey = key
        return keyed
    }

    /// The number of entries, to compare: `$0.phones.count > 1`.
    public var count: Query<Int> {
        var counted = path
        counted.countsList = true
        return Query<Int>(.path(counted))
    }

    /// The map's keys, for `.contains(_:)`.
    public var keys: Query<_QueryMapKeys> { Query<_QueryMapKeys>(.path(path)) }

    /// The map's values, for `.contains(_:)`.
    public var values: Query<_QueryMapValues<Value._MapValueType>> {
        Query<_QueryMapValues<Value._MapValueType>>(.path(path))
    }
}

/// Implementation detail: a Map's keys in a query (`$0.phones.keys.contains("work")`).
public struct _QueryMapKeys {}

/// Implementation detail: a Map's values in a query (`$0.phones.values.contains("1")`).
public struct _QueryMapValues<V> {}

extension Query where Value == _QueryMapKeys {
    /// Whether the map has an entry for `key`.
    public func contains(_ key: String) -> Query<Bool> {
        let bytes = Array(key.utf8)
        return comparison("\(path).@keys CONTAINS \"\(key)\"", access: nil) { column in
            guard let column, let found = MapFormat.lookUp(bytes, in: column) else { return nil }  // nil: `.corrupted`
            return found.isPresent
        }
    }
}

extension Query {
    /// Whether a value of the map equals `value` (a `_QueryEquatable` value type, or nil).
    public func contains<V: _QueryEquatable & _MapValue>(_ value: V) -> Query<Bool>
    where Value == _QueryMapValues<V> {
        if let mixed = value as? AnyValue {
            let operand = MixedComparison.key(of: mixed)
            return comparison("\(path).@values CONTAINS \(value)", access: nil) { column in
                guard let column, let entries = try? MapFormat.entries(column) else { return nil }
                for entry in entries {
                    guard let stored = MixedComparison.key(entry.value) else { return nil }
                    if stored == operand { return true }
                }
                return false
            }
        }
        return comparison("\(path).@values CONTAINS \(value)", access: nil) { column in
            guard let column, let entries = try? MapFormat.entries(column) else { return nil }
            let context = _DecodeContext(owner: nil, column: 0)
            for entry in entries {
                let decoded: V
                do {
                    decoded = try V._strataDecodeMapValue(entry.value, in: context)
                } catch {
                    return nil
                }
                if V._queryEqual(decoded, value) { return true }
            }
            return false
        }
    }
}
