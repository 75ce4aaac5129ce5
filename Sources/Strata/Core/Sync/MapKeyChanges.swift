extension MapFormat {
    /// The keys whose value or presence differs between two stored maps, in key order.
    ///
    /// - Throws: when either is not a map.
    static func changedKeys(from old: UnsafeRawBufferPointer, to new: UnsafeRawBufferPointer) throws(RowDamage)
        -> [String]
    {
        let before = try entries(old)
        let after = try entries(new)
        var changed: [String] = []
        var i = 0
        var j = 0
        while i < before.count || j < after.count {
            let order: Int
            if i == before.count {
                order = 1
            } else if j == after.count {
                order = -1
            } else {
                order =
                    before[i].key.lexicographicallyPrecedes(after[j].key)
                    ? -1 : (after[j].key.lexicographicallyPrecedes(before[i].key) ? 1 : 0)
            }
            switch order {
            case -1:
                changed.append(String(decoding: before[i].key, as: UTF8.self))
                i += 1
            case 1:
                changed.append(String(decoding: after[j].key, as: UTF8.self))
                j += 1
            default:
                if !Self.same(before[i].value, after[j].value) {
                    changed.append(String(decoding: after[j].key, as: UTF8.self))
                }
                i += 1
                j += 1
            }
        }
        return changed
    }

    private static func same(_ a: UnsafeRawBufferPointer?, _ b: UnsafeRawBufferPointer?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): a.elementsEqual(b)
        default: false
        }
    }
}

/// The keys of a Map a change sets or removes, as sync sends them: the list format (`ListFormat`),
/// 2n elements, each key then its change: `[0]` removed, `[1]` and the value's bytes (as the Map
/// stores it), `[2]` set to null.
enum MapPatch {
    enum Change: Equatable {
        case removed
        case set([UInt8]?)
    }

    /// The patch of `keys` as `map` (a stored Map column; nil: empty) now holds them.
    static func encode(keys: [String], from map: UnsafeRawBufferPointer?) throws(RowDamage) -> [UInt8] {
        var changes: [[UInt8]] = []
        for key in keys {
            let found = try map.flatMap { (map) throws(RowDamage) in
                try Array(key.utf8).withBytes { (needle) throws(RowDamage) in
                    try MapFormat.value(forKey: needle, in: map)
                }
            }
            switch found {
            case .none: changes.append([0])
            case .some(.none): changes.append([2])
            case .some(.some(let value)): changes.append([1] + Array(value))
            }
        }
        return _RowEncoder.columnBytes { encoder in
            encoder.writeListHeader(count: keys.count * 2)
            for (key, change) in zip(keys, changes) {
                let start = encoder.beginElement()
                encoder.write(key)
                encoder.endElement(start)
                change.withUnsafeBytes { encoder.writeElement($0) }
            }
            encoder.endColumn()
        }
    }

    /// The keys and changes of a patch.
    ///
    /// - Throws: when the bytes are not a patch.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(RowDamage) -> [(key: String, change: Change)] {
        let elements = try ListFormat.elements(bytes)
        guard elements.count % 2 == 0 else { throw RowDamage("a Map patch has an odd number of parts") }
        var changes: [(key: String, change: Change)] = []
        var index = 0
        while index < elements.count {
            guard let key = elements[index], let name = UTF8Text.string(key) else {
                throw RowDamage("a Map patch key is null or not UTF-8")
            }
            if let problem = MapFormat.problem(withKey: name) { throw RowDamage(problem) }
            guard let change = elements[index + 1], let tag = change.first else {
                throw RowDamage("a Map patch change is empty")
            }
            switch tag {
            case 0 where change.count == 1: changes.append((name, .removed))
            case 1: changes.append((name, .set(Array(change.dropFirst()))))
            case 2 where change.count == 1: changes.append((name, .set(nil)))
            default: throw RowDamage("a Map patch change has the tag \(tag)")
            }
            index += 2
        }
        return changes
    }

    /// `map` (nil: empty) with the patch applied, except to the keys in `keeping`.
    static func apply(
        _ patch: [(key: String, change: Change)], to map: UnsafeRawBufferPointer?, keeping: Set<String> = []
    ) throws(RowDamage) -> [UInt8] {
        var entries: [String: [UInt8]?] = [:]
        if let map {
            for entry in try MapFormat.entries(map) {
                // `.some`: a null value stays a key (assigning nil would remove it).
                entries[String(decoding: entry.key, as: UTF8.self)] = .some(entry.value.map { Array($0) })
            }
        }
        for (key, change) in patch where !keeping.contains(key) {
            switch change {
            case .removed: entries.removeValue(forKey: key)
            case .set(let value): entries[key] = .some(value)
            }
        }
        return MapFormat.column(entries)
    }
}
