#if Encryption
    /// One write transaction's changes to a table kept in blocks (`SealedBlockTable`), opened: a value,
    /// so that a put reaches all of it through one access of its box (`Box.update`) instead of one
    /// checked access per field. A nested transaction gets a copy (the collections are shared until
    /// either side changes).
    struct BlockChanges {
        /// Opened blocks it changed but the open one: sealed by `prepare`.
        var blocks: [UInt64: RowBlock] = [:]
        /// The number of its open block, where new pairs go, and its rows: kept out of `blocks` so
        /// that a put reaches them without a hash (empty while there is no open block).
        var openBlock: UInt64?
        var open = RowBlock()
        /// The open block's `encodedCount`, while known without looking it up (a bulk insert's puts).
        var openSize: Int?
        var nextBlock: UInt64?
        /// Key entries to write: the block of each sealed key, nil to delete it.
        var keys: PendingKeys
        /// Whether the key table was empty when the transaction began (it is only written at
        /// commit): a new key above every pending one is then known absent without sealing it.
        var keyTableWasEmpty: Bool?
        /// Keys added less keys removed.
        var entryDelta = 0
        /// Whether blocks sealed before the commit are kept for it (`put`'s `keepsBlocks`).
        var keepsBlocks = false
        var sealedBlocks: [(number: UInt64, block: RowBlock)] = []

        init(keys: PendingKeys) {
            self.keys = keys
        }

        /// Block `number` as this transaction changed it; nil when it did not.
        func changed(_ number: UInt64) -> RowBlock? {
            number == openBlock ? open : blocks[number]
        }

        /// Every block it changed, the open one included.
        var allChanged: [UInt64: RowBlock] {
            var all = blocks
            if let openBlock { all[openBlock] = open }
            return all
        }

        /// A transaction's changes, found by its handle (a class: a put looks its transaction up once).
        final class Box {
            private var changes: BlockChanges

            init(_ changes: BlockChanges) {
                self.changes = changes
            }

            /// `body` run on the changes: one access for all it reads and changes.
            func update<R, E: Error>(_ body: (inout BlockChanges) throws(E) -> R) throws(E) -> R {
                try body(&changes)
            }

            var value: BlockChanges { changes }
        }
    }
#endif
