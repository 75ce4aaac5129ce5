#if Encryption
    /// A write transaction's key entries not yet in the key table (`SealedBlockTable`): each sealed
    /// key's block number, or nil for a key removed. A short key's sealed block is the output of AES,
    /// uniformly spread, so its own low bits index an open-addressing table (no hashing, no per-entry
    /// allocation: a bulk insert adds one entry per row); longer keys go to a dictionary.
    ///
    /// Keys put in increasing order (a bulk insert's) are only appended to `run`: a key above every
    /// key with an entry has none, so it is found absent without touching the table. The run moves
    /// into the table when a key at or below the greatest is asked for. While the key table was empty
    /// when the transaction began, such keys need no look-up there either, and are kept unsealed
    /// (`appendUnsealed`), to be sealed together (`Sealer.sealShortKeys`) when the run is needed.
    struct PendingKeys {
        /// Seals short keys together (the table's `Sealer.sealShortKeys`).
        typealias SealShortKeys = ([(bytes: UInt64, length: UInt8)]) -> [(UInt64, UInt64)]
        struct Slot {
            var high: UInt64 = 0
            var low: UInt64 = 0
            var number: UInt64 = 0
            /// 0: empty; 1: a block number; 2: removed.
            var state: UInt8 = 0

            func precedes(_ other: Slot) -> Bool { high != other.high ? high < other.high : low < other.low }
        }

        private var slots = [Slot](repeating: Slot(), count: 64)
        private var used = 0
        private var long: [[UInt8]: UInt64?] = [:]
        /// New entries of short keys put in increasing order, not yet in `slots`.
        private var run: [Slot] = []
        /// New entries of short keys put in increasing order, not sealed yet (after `run`): each key
        /// and its block number (two arrays: the keys go to `sealShortKeys` as they are).
        private var unsealedKeys: [(bytes: UInt64, length: UInt8)] = []
        private var unsealedNumbers: [UInt64] = []
        private let sealShortKeys: SealShortKeys
        /// The greatest key (before sealing) with an entry: a short one as its prefix (`SealedOrder.prefix`,
        /// which orders keys of at most 8 bytes with their lengths) and length, so that a bulk insert's
        /// put compares and records it without copying bytes.
        private enum Greatest {
            case none
            case short(prefix: UInt64, length: Int)
            case long([UInt8])

            init(_ plain: UnsafeRawBufferPointer) {
                self =
                    plain.count <= Sealer.shortKeyLength
                    ? .short(prefix: SealedOrder.prefix(plain), length: plain.count) : .long(Array(plain))
            }
        }
        private var greatest = Greatest.none

        init(sealShortKeys: @escaping SealShortKeys) {
            self.sealShortKeys = sealShortKeys
        }

        /// Adds the entry of a new short key `plain` above every key with an entry (`isAboveGreatest`),
        /// known absent from the key table: sealed later, with others.
        mutating func appendUnsealed(_ plain: UnsafeRawBufferPointer, number: UInt64) {
            var bytes: UInt64 = 0
            withUnsafeMutableBytes(of: &bytes) { $0.copyMemory(from: plain) }
            unsealedKeys.append((bytes, UInt8(plain.count)))
            unsealedNumbers.append(number)
            greatest = .short(prefix: UInt64(bigEndian: bytes), length: plain.count)  // `SealedOrder.prefix`'s
        }

        /// The entry of `key` (`plain` sealed): nil when this transaction has none, .some(nil) when it
        /// removed the key.
        mutating func entry(_ key: SealedKey, plain: UnsafeRawBufferPointer) -> UInt64?? {
            if isAboveGreatest(plain) { return nil }
            spillRun()
            return self[key]
        }

        /// Sets the entry of `key` (`plain` sealed): its block, or nil for a key removed.
        mutating func set(_ key: SealedKey, plain: UnsafeRawBufferPointer, to entry: UInt64?) {
            guard isAboveGreatest(plain) else {
                spillRun()
                self[key] = .some(entry)
                return
            }
            greatest = Greatest(plain)
            if case .block(let high, let low) = key, let entry {
                run.append(Slot(high: high, low: low, number: entry, state: 1))
            } else {
                self[key] = .some(entry)
            }
        }

        func isAboveGreatest(_ plain: UnsafeRawBufferPointer) -> Bool {
            switch greatest {
            case .none: return true
            case .short(let prefix, let length):
                // A prefix below `plain`'s first 8 bytes' is below it; an equal one is `plain`'s own
                // first bytes (zeros past its length), below `plain` when it is shorter.
                let other = SealedOrder.prefix(plain)
                return prefix < other || (prefix == other && length < plain.count)
            case .long(let bytes): return bytes.withUnsafeBytes { SealedOrder.compare($0, plain) < 0 }
            }
        }

        /// The unsealed entries, sealed (together).
        private func sealedUnsealed() -> [Slot] {
            zip(sealShortKeys(unsealedKeys), unsealedNumbers).map { sealed, number in
                Slot(high: sealed.0, low: sealed.1, number: number, state: 1)
            }
        }

        private mutating func spillRun() {
            if !unsealedKeys.isEmpty {
                run += sealedUnsealed()
                unsealedKeys = []
                unsealedNumbers = []
            }
            guard !run.isEmpty else { return }
            let spilled = run
            run = []
            for slot in spilled { self[.block(slot.high, slot.low)] = .some(slot.number) }
        }

        private subscript(key: SealedKey) -> UInt64?? {
            get {
                switch key {
                case .long(let bytes): return long[bytes]
                case .block(let high, let low):
                    let slot = slots[position(high, low)]
                    switch slot.state {
                    case 1: return .some(slot.number)
                    case 2: return .some(nil)
                    default: return nil
                    }
                }
            }
            set {
                switch key {
                case .long(let bytes): long[bytes] = newValue
                case .block(let high, let low):
                    guard let entry = newValue else { return }  // entries are never forgotten, only removed
                    var index = position(high, low)
                    if slots[index].state == 0 {
                        if (used + 1) * 10 > slots.count * 7 {
                            grow()
                            index = position(high, low)
                        }
                        used += 1
                    }
                    slots[index] = Slot(high: high, low: low, number: entry ?? 0, state: entry == nil ? 2 : 1)
                }
            }
        }

        /// Every entry in the order of the sealed keys' bytes (the order LMDB keeps them in): the short
        /// keys' (state 1: a block number; 2: removed) and the longer keys' (nil: removed), each sorted.
        func sorted() -> (short: [Slot], long: [(key: [UInt8], number: UInt64?)]) {
            let long = self.long.map { (key: $0.key, number: $0.value) }.sorted {
                $0.key.lexicographicallyPrecedes($1.key)
            }
            if used == 0, run.isEmpty {  // a bulk insert into an empty table: placed as they are sealed
                let sealed = unsealedKeys.isEmpty ? [] : sealShortKeys(unsealedKeys)
                return (
                    Self.sorted(count: sealed.count) {
                        Slot(high: sealed[$0].0, low: sealed[$0].1, number: unsealedNumbers[$0], state: 1)
                    }, long
                )
            }
            var all = used > 0 ? slots.filter { $0.state != 0 } : []
            all += run
            if !unsealedKeys.isEmpty { all += sealedUnsealed() }
            return (Self.sorted(count: all.count) { all[$0] }, long)
        }

        /// The `count` slots `slot` gives, in the order of their keys: placed by the top bits of `high`
        /// (AES output, spread evenly: about one slot per place), then the few out of order moved into
        /// place.
        private static func sorted(count: Int, _ slot: (Int) -> Slot) -> [Slot] {
            guard count > 1 else { return (0..<count).map(slot) }
            let bits = min(24, Int.bitWidth - count.leadingZeroBitCount)
            let shift = UInt64(64 - bits)
            var starts = [Int32](repeating: 0, count: (1 << bits) + 1)
            for index in 0..<count { starts[Int(slot(index).high >> shift) + 1] += 1 }
            for index in 1..<starts.count { starts[index] += starts[index - 1] }
            var placed = [Slot](repeating: Slot(), count: count)
            for index in 0..<count {
                let slot = slot(index)
                let bucket = Int(slot.high >> shift)
                placed[Int(starts[bucket])] = slot
                starts[bucket] += 1
            }
            for index in 1..<placed.count {  // insertion sort: only neighbours of one bucket move
                let slot = placed[index]
                var target = index
                while target > 0, slot.precedes(placed[target - 1]) {
                    placed[target] = placed[target - 1]
                    target -= 1
                }
                placed[target] = slot
            }
            return placed
        }

        /// Where `high`/`low` is, or the empty slot where it would go (linear probing).
        private func position(_ high: UInt64, _ low: UInt64) -> Int {
            let mask = slots.count - 1
            var index = Int(truncatingIfNeeded: low) & mask
            while slots[index].state != 0, slots[index].high != high || slots[index].low != low {
                index = (index + 1) & mask
            }
            return index
        }

        private mutating func grow() {
            let old = slots
            slots = [Slot](repeating: Slot(), count: old.count * 2)
            for slot in old where slot.state != 0 { slots[position(slot.high, slot.low)] = slot }
        }
    }
#endif
