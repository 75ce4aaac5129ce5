#if Sync
    @_spi(StrataSync) import Strata

    /// The batches of a push sent and not answered yet, oldest first (`StoreSync.pushAll`), each with
    /// the connection it went on.
    ///
    /// A batch whose statement claims its numbers last (`PreparedPush.claimingLast`) goes on the other
    /// connection than the batch before it, so that two backends insert at once; any other batch goes
    /// on the connection of the batch before it, behind it: a statement that claims first reads the
    /// client's place in its snapshot, and must start after the one before ended.
    struct PushFlight {
        struct Entry {
            let batch: OutgoingBatch
            /// nil: nothing to send (the batch's changes were to objects deleted since).
            let prepared: PreparedPush?
            let sent: ServerConnection.SentStatement?
            let connection: ServerConnection
        }

        private(set) var entries: [Entry] = []

        var count: Int { entries.count }
        var oldest: Entry? { entries.first }

        /// Where `prepared` goes, `partner` being the second connection (nil: none).
        func connection(for prepared: PreparedPush?, main: ServerConnection, partner: ServerConnection?)
            -> ServerConnection
        {
            guard let previous = entries.last?.connection else { return main }
            guard prepared?.claimsLast == true, let partner else { return previous }
            return previous === main ? partner : main
        }

        mutating func append(_ entry: Entry) { entries.append(entry) }

        mutating func removeOldest() -> Entry { entries.removeFirst() }

        mutating func removeAll() -> [Entry] {
            defer { entries = [] }
            return entries
        }
    }
#endif
