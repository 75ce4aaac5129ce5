/// A hash table from document numbers to values, open addressing with linear probing and a
/// multiplicative hash: what a graph search looks up per node met (visited, addresses), several
/// times cheaper than a `Dictionary`'s seeded hashing for 8-byte keys, each key beside its value (one
/// cache line per probe). No removal.
struct DocumentTable<Value> {
    private var slots: [(key: UInt64, value: Value?)]
    private(set) var count = 0
    private var mask: Int
    private var shift: UInt64

    init(minimumCapacity: Int = 16) {
        var size = 16
        while size < minimumCapacity * 2 { size *= 2 }
        slots = Array(repeating: (0, nil), count: size)
        mask = size - 1
        shift = UInt64(64 - size.trailingZeroBitCount)
    }

    @inline(__always)
    private func home(of key: UInt64) -> Int { Int(truncatingIfNeeded: (key &* 0x9E37_79B9_7F4A_7C15) >> shift) }

    subscript(key: UInt64) -> Value? {
        get {
            var slot = home(of: key)
            while let value = slots[slot].value {
                if slots[slot].key == key { return value }
                slot = (slot + 1) & mask
            }
            return nil
        }
        set {
            guard let newValue else { return }  // no removal
            if !insert(key, newValue) {
                var slot = home(of: key)
                while slots[slot].key != key { slot = (slot + 1) & mask }
                slots[slot].value = newValue
            }
        }
    }

    /// Asks the memory for the slot `key` would be found in first (a lookup a few steps later then
    /// waits less).
    @inline(__always)
    func prefetch(_ key: UInt64) {
        slots.withUnsafeBufferPointer { MemoryHint.prefetch(UnsafeRawPointer($0.baseAddress! + home(of: key))) }
    }

    /// Adds `key` (with `value`); false when it was there already (its value left as it was).
    @discardableResult
    mutating func insert(_ key: UInt64, _ value: Value) -> Bool {
        if (count + 1) * 2 > slots.count { grow() }
        var slot = home(of: key)
        while slots[slot].value != nil {
            if slots[slot].key == key { return false }
            slot = (slot + 1) & mask
        }
        slots[slot] = (key, value)
        count += 1
        return true
    }

    private mutating func grow() {
        var bigger = DocumentTable(minimumCapacity: slots.count)
        for slot in slots { if let value = slot.value { bigger.insert(slot.key, value) } }
        self = bigger
    }
}
