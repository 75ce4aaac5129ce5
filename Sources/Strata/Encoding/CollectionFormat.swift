import Foundation

/// Maps and sets in a column. Both use the list format (`ListFormat`):
/// - a Map: 2n elements, key, value, key, value… Keys are UTF-8, never null, unique, in byte order; a
///   value is null for nil (an optional value, or a link whose target was deleted);
/// - a MutableSet: its elements, unique and in the order of `SetOrder.key` (so that an element is
///   found by its bytes, and the set's indices are the same for every reader).
enum MapFormat {
    /// One entry of a stored map (views into the column's bytes).
    struct Entry {
        let key: UnsafeRawBufferPointer
        let value: UnsafeRawBufferPointer?
    }

    /// A stored Map column holding `entries` (a nil value: null), its keys in stored order.
    static func column(_ entries: [String: [UInt8]?]) -> [UInt8] {
        _RowEncoder.columnBytes { encoder in
            let keys = sortedKeys(Array(entries.keys))
            encoder.writeListHeader(count: keys.count * 2)
            for key in keys {
                let start = encoder.beginElement()
                encoder.write(key)
                encoder.endElement(start)
                if let value = entries[key] ?? nil {
                    value.withUnsafeBytes { encoder.writeElement($0) }
                } else {
                    encoder.writeNullElement()
                }
            }
            encoder.endColumn()
        }
    }

    /// Keys in stored order: UTF-8 byte order (not String's Unicode order).
    static func sortedKeys(_ keys: [String]) -> [String] {
        keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
    }

    /// The most bytes a key may have (LMDB's key size: the same rule as a String primary key's).
    static let maxKeyBytes = 511

    /// The entries of a stored map.
    ///
    /// - Throws: when the bytes are not a map: an odd element count, a null or non-UTF-8 key, keys
    ///   out of order or repeated.
    static func entries(_ bytes: UnsafeRawBufferPointer) throws(RowDamage) -> [Entry] {
        let elements = try ListFormat.elements(bytes)
        guard elements.count % 2 == 0 else { throw RowDamage("a Map has an odd number (\(elements.count)) of parts") }
        var entries: [Entry] = []
        entries.reserveCapacity(elements.count / 2)
        var index = 0
        while index < elements.count {
            guard let key = elements[index] else { throw RowDamage("a Map key is null") }
            guard UTF8Text.isValid(key) else { throw RowDamage("a Map key is not UTF-8") }
            if let previous = entries.last, !previous.key.lexicographicallyPrecedes(key) {
                throw RowDamage("Map keys are out of order or repeated")
            }
            entries.append(Entry(key: key, value: elements[index + 1]))
            index += 2
        }
        return entries
    }

    /// The value stored under `key`: `.some(nil)` for a null value, nil when the key is absent. Walks
    /// the pairs in place (no allocation, other keys' text not validated: `entries` and `verify()`
    /// do that), stopping at the first key past `key`.
    ///
    /// - Throws: when the bytes are not a map's up to where the walk stops.
    static func value(forKey key: [UInt8], in bytes: UnsafeRawBufferPointer) throws(RowDamage)
        -> UnsafeRawBufferPointer??
    {
        try key.withBytes { (needle) throws(RowDamage) in try value(forKey: needle, in: bytes) }
    }

    static func value(forKey needle: UnsafeRawBufferPointer, in bytes: UnsafeRawBufferPointer) throws(RowDamage)
        -> UnsafeRawBufferPointer??
    {
        guard bytes.count >= 4, let base = bytes.baseAddress else {
            throw RowDamage("a Map of \(bytes.count) bytes has no count")
        }
        let end = bytes.count
        let parts = Int(UInt32(littleEndian: bytes.loadUnaligned(as: UInt32.self)))
        guard parts % 2 == 0, parts <= (end - 4) / 4 else { throw RowDamage("a Map claims \(parts) parts") }
        // One flat loop (no nested function, no slicing): this is the hot path of `map["k"]`.
        var offset = 4
        for _ in 0..<(parts / 2) {
            guard offset + 4 <= end else { throw RowDamage("a Map key is cut off") }
            let keyLength = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            guard keyLength != ListFormat.nullElement else { throw RowDamage("a Map key is null") }
            let keyStart = offset + 4
            guard Int(keyLength) <= end - keyStart else { throw RowDamage("a Map key claims \(keyLength) bytes") }
            offset = keyStart + Int(keyLength)
            guard offset + 4 <= end else { throw RowDamage("a Map value is cut off") }
            let valueLength = UInt32(littleEndian: base.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            let valueStart = offset + 4
            offset = valueStart
            if valueLength != ListFormat.nullElement {
                guard Int(valueLength) <= end - valueStart else {
                    throw RowDamage("a Map value claims \(valueLength) bytes")
                }
                offset += Int(valueLength)
            }
            let order = compare(base + keyStart, Int(keyLength), needle)
            if order > 0 { return nil }  // keys are sorted: it would have come by now
            if order == 0 {
                guard valueLength != ListFormat.nullElement else { return .some(nil) }
                return .some(UnsafeRawBufferPointer(start: base + valueStart, count: Int(valueLength)))
            }
        }
        return nil
    }

    /// Byte order of `count` bytes at `key` against `needle`: negative, zero or positive.
    private static func compare(_ key: UnsafeRawPointer, _ count: Int, _ needle: UnsafeRawBufferPointer) -> Int {
        let common = Swift.min(count, needle.count)
        if common > 0, let right = needle.baseAddress {
            let order = memcmp(key, right, common)
            if order != 0 { return Int(order) }
        }
        return count - needle.count
    }

    /// For queries: whether `key` is present and its value (nil: absent or null); nil when the
    /// bytes are damaged.
    static func lookUp(_ key: [UInt8], in bytes: UnsafeRawBufferPointer) -> (
        isPresent: Bool, value: UnsafeRawBufferPointer?
    )? {
        do {
            guard let found = try value(forKey: key, in: bytes) else { return (false, nil) }
            return (true, found)
        } catch {
            return nil
        }
    }

    /// Why `key` cannot be a Map key (Realm's rule: no `.`, no leading `$`; and at most 511 bytes),
    /// or nil.
    static func problem(withKey key: String) -> String? {
        if key.utf8.contains(UInt8(ascii: ".")) { return "a Map key cannot contain \".\": \"\(key)\"" }
        if key.utf8.first == UInt8(ascii: "$") { return "a Map key cannot start with \"$\": \"\(key)\"" }
        if key.utf8.count > maxKeyBytes {
            return "a Map key has at most \(maxKeyBytes) bytes, not \(key.utf8.count): \"\(key.prefix(40))…\""
        }
        return nil
    }
}

enum SetOrder {
    /// A key whose byte order is the set's order and whose equality is the elements' equality (for
    /// values, as `==`: `1.50` and `1.5`, `-0.0` and `0.0`): null first, then the values in their
    /// natural order (numbers as numbers, strings and data bytewise, links by the target's key).
    static func key(_ element: UnsafeRawBufferPointer?, type: PropertyType) throws(RowDamage) -> [UInt8] {
        guard let element else { return [KeyEncoding.nullTag] }
        var key: [UInt8] = [KeyEncoding.valueTag]
        switch type {
        case .optional(let wrapped):
            return try self.key(element, type: wrapped)
        case .link, .string, .data:
            key.append(contentsOf: element)
        case .float:
            guard element.count == 4 else { throw RowDamage("a Float element has \(element.count) bytes") }
            let value = Float(bitPattern: UInt32(littleEndian: element.loadUnaligned(as: UInt32.self)))
            let bits = (value == 0 ? 0 : value.isNaN ? Float.nan : value).bitPattern
            let ordered = bits & (1 << 31) != 0 ? ~bits : bits | (1 << 31)
            withUnsafeBytes(of: ordered.bigEndian) { key.append(contentsOf: $0) }
        case .double, .date:
            guard element.count == 8 else { throw RowDamage("a \(type) element has \(element.count) bytes") }
            let value = Double(bitPattern: UInt64(littleEndian: element.loadUnaligned(as: UInt64.self)))
            let bits = (value == 0 ? 0 : value.isNaN ? Double.nan : value).bitPattern
            let ordered = bits & (1 << 63) != 0 ? ~bits : bits | (1 << 63)
            withUnsafeBytes(of: ordered.bigEndian) { key.append(contentsOf: $0) }
        case .mixed:
            try MixedFormat.orderKey(element, into: &key)
        case .decimal:
            guard let decimal = try? Decimal._strataDecodeValue(element, in: _DecodeContext(owner: nil, column: 0))
            else { throw RowDamage("an undecodable Decimal element") }
            key.removeAll()
            Decimal128.appendIndexKey(of: Decimal128(decimal), to: &key)
            key.insert(KeyEncoding.valueTag, at: 0)
        default:
            try KeyEncoding.indexKey(column: element, type: type, into: &key)
        }
        return key
    }

    /// Checks that stored set elements are in the set's order, each once.
    static func checkSorted(_ elements: [UnsafeRawBufferPointer?], type: PropertyType) throws(RowDamage) {
        var previous: [UInt8]?
        for element in elements {
            let key = try key(element, type: type)
            if let previous, !previous.lexicographicallyPrecedes(key) {
                throw RowDamage("MutableSet elements are out of order or repeated")
            }
            previous = key
        }
    }

    /// The elements of an encoded list as a set: sorted by their keys, the first of equal ones kept.
    static func sortedUnique(_ elements: [UnsafeRawBufferPointer?], type: PropertyType) throws(RowDamage)
        -> [UnsafeRawBufferPointer?]
    {
        var keyed: [(key: [UInt8], element: UnsafeRawBufferPointer?)] = []
        keyed.reserveCapacity(elements.count)
        for element in elements { keyed.append((try key(element, type: type), element)) }
        keyed.sort { $0.key.lexicographicallyPrecedes($1.key) }  // stable: the first of equals stays first
        var unique: [UnsafeRawBufferPointer?] = []
        unique.reserveCapacity(keyed.count)
        for (index, item) in keyed.enumerated() where index == 0 || keyed[index - 1].key != item.key {
            unique.append(item.element)
        }
        return unique
    }
}

/// The links a collection column holds, and rewriting them (a target deleted, or given a new key).
enum CollectionLinks {
    /// The link targets of a link or collection-of-links column (null elements left out).
    static func targets(_ bytes: UnsafeRawBufferPointer, type: PropertyType) throws(RowDamage)
        -> [UnsafeRawBufferPointer]
    {
        switch type {
        case .list, .set: return try ListFormat.elements(bytes).compactMap { $0 }
        case .map: return try MapFormat.entries(bytes).compactMap(\.value)
        default: return [bytes]
        }
    }

    /// Appends a collection-of-links column with each target replaced by what `replacement` gives
    /// (nil: the target is gone: a List and a set drop it, a Map keeps the key with a null value).
    static func appendRewritten(
        _ bytes: UnsafeRawBufferPointer, type: PropertyType, into encoder: inout _RowEncoder,
        replacement: (UnsafeRawBufferPointer) -> [UInt8]?
    ) throws(RowDamage) {
        switch type {
        case .map:
            let entries = try MapFormat.entries(bytes)
            encoder.writeListHeader(count: entries.count * 2)
            for entry in entries {
                encoder.writeElement(entry.key)
                if let value = entry.value, let replaced = replacement(value) {
                    replaced.withUnsafeBytes { encoder.writeElement($0) }
                } else {
                    encoder.writeNullElement()
                }
            }
            encoder.endColumn()
        case .set(let element):
            var kept: [[UInt8]] = []
            for target in try ListFormat.elements(bytes) {
                if let target, let replaced = replacement(target) { kept.append(replaced) }
            }
            try writeSet(kept, type: element, into: &encoder)
        default:
            var kept: [[UInt8]] = []
            for target in try ListFormat.elements(bytes) {
                if let target, let replaced = replacement(target) { kept.append(replaced) }
            }
            encoder.appendKeyList(kept)
        }
    }

    private static func writeSet(_ elements: [[UInt8]], type: PropertyType, into encoder: inout _RowEncoder)
        throws(RowDamage)
    {
        var pointers: [UnsafeRawBufferPointer?] = []
        let storage = elements.map { ByteArrayBox($0) }
        for box in storage { pointers.append(box.bytes) }
        let sorted = try SetOrder.sortedUnique(pointers, type: type)
        encoder.writeListHeader(count: sorted.count)
        for element in sorted {
            if let element { encoder.writeElement(element) } else { encoder.writeNullElement() }
        }
        encoder.endColumn()
        withExtendedLifetime(storage) {}
    }
}

/// Bytes at a stable address for as long as the box lives (sorting views of several arrays at once).
final class ByteArrayBox {
    let pointer: UnsafeMutableRawBufferPointer

    private let count: Int

    init(_ bytes: [UInt8]) {
        let pointer = UnsafeMutableRawBufferPointer.allocate(byteCount: Swift.max(bytes.count, 1), alignment: 1)
        bytes.withUnsafeBytes { pointer.copyMemory(from: $0) }
        self.pointer = pointer
        count = bytes.count
    }

    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(rebasing: pointer[0..<count]) }

    deinit { pointer.deallocate() }
}
