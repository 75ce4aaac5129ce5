#if Sync
    import Foundation
    @_spi(StrataSync) import Strata

    /// The push of the outbox: batches read and built while the server works on the ones before,
    /// sent one behind another, batches of inserts on two connections (`PushFlight`).
    extension StoreSync {
        /// Sends the outbox, batch after batch. While the server works on one batch, this actor reads
        /// the next from the outbox and builds its statements (two cores: the client's work hides behind
        /// the server's), and sends its one statement right behind the one under way: the server starts
        /// it the moment the first ends, without waiting for a round trip through this actor. It writes
        /// only if the batch before it did (`PreparedPush.Sequences.previousThrough`).
        ///
        /// Once a batch of the push landed (the client's row is on the server), batches of inserts go
        /// on two connections in turn (`PushFlight`, `PreparedPush.claimingLast`): each inserts its
        /// objects while the one before is still under way, and takes its numbers after it.
        ///
        /// When a statement writes nothing, none sent after it can have written unless the server had
        /// the batch already (an acknowledgement lost): their answers are awaited, the server's place
        /// for this client says which landed, and the push goes on from the first that did not, read
        /// as changes and pushed alone (in a transaction when its statement writes nothing again).
        ///
        /// A batch leaves the outbox once the server acknowledged it. A batch with refused changes is
        /// recorded as refused (`refusedChanges()`) and sent again without them.
        func pushAll(_ connection: ServerConnection) async throws(SyncError) {
            // The outbox place and the last change of the batches the server acknowledged.
            var place: UInt64 = 0
            var landed: Int64 = 0
            // The same through the batches sent.
            var sentPlace: UInt64 = 0
            var sentLanding: Int64 = 0
            var flight = PushFlight()
            // A batch read and not sent yet: it goes alone, once the flight is empty (a transaction, or
            // read as changes after a statement that wrote nothing).
            var held: (OutgoingBatch, PreparedPush?)?
            var alone = false
            // The batches the server acknowledged, still in the outbox: removed while the next are
            // pushed, `batchesPerRemoval` at a time (each removal is a durable commit: an fsync).
            var acknowledgedThrough: UInt64?
            var unremoved = 0
            func land(_ batch: OutgoingBatch, _ prepared: PreparedPush?) {
                guard let through = batch.through else { return }
                landed = prepared?.clientSequence ?? landed
                place = through
                acknowledgedThrough = through
                unremoved += 1
                update { $0.pending = max(0, $0.pending - batch.recordedCount) }
            }
            while true {
                let depth = partner == nil ? 2 : 3
                while flight.count < depth {
                    if held == nil {
                        let claimsLast = !alone && !partnerUnavailable && landed > 0 && sentLanding > 0
                        held = try preparedBatch(
                            after: sentPlace, previousThrough: sentLanding, insertsApart: !alone,
                            claimsLast: claimsLast)
                    }
                    guard let (batch, prepared) = held, let through = batch.through else { break }
                    if alone || (prepared != nil && prepared?.statement == nil) {
                        // Alone, after the batches under way: its statement, else a transaction.
                        guard flight.count == 0 else { break }
                        held = nil
                        alone = false
                        if let prepared {
                            switch try await connection.push(prepared, clientID: clientID, identity: identity) {
                            case .accepted: land(batch, prepared)
                            case .readAgain: alone = true
                            case .refused(let changes): try await recordRefused(changes)
                            }
                        } else {
                            land(batch, nil)
                        }
                        (sentPlace, sentLanding) = (place, landed)
                        continue
                    }
                    held = nil
                    let second = prepared?.claimsLast == true ? await pushPartner() : nil
                    let on = flight.connection(for: prepared, main: connection, partner: second)
                    flight.append(
                        .init(batch: batch, prepared: prepared, sent: prepared?.statement.map(on.send), connection: on))
                    sentPlace = through
                    sentLanding = prepared?.clientSequence ?? sentLanding
                }
                if unremoved >= Self.batchesPerRemoval, let done = acknowledgedThrough.take() {
                    unremoved = 0
                    try await removeAcknowledged(through: done)
                }
                guard let oldest = flight.oldest else {
                    if held == nil { break }
                    continue  // a batch to push alone
                }
                if let sent = oldest.sent, try await oldest.connection.wroteThrough(sent) == nil {
                    let sentBehind = flight.removeAll()
                    for entry in sentBehind.dropFirst() {
                        if let sent = entry.sent { _ = try await entry.connection.wroteThrough(sent) }
                    }
                    let serverPlace = try await connection.pushedThrough(clientID: clientID)
                    for entry in sentBehind {
                        if let prepared = entry.prepared, prepared.clientSequence > serverPlace { break }
                        land(entry.batch, entry.prepared)
                    }
                    (sentPlace, sentLanding) = (place, landed)
                    held = nil
                    alone = true
                    continue
                }
                let answered = flight.removeOldest()
                land(answered.batch, answered.prepared)
            }
            if let done = acknowledgedThrough { try await removeAcknowledged(through: done) }
            try storeCall { () throws(StoreError) in try recountPending() }
        }

        /// The second connection of pushes (`PushFlight`), opened when first asked for; nil when it
        /// cannot be (the server's connection limit, say): the push goes on one connection until the
        /// connections are dropped.
        fileprivate func pushPartner() async -> ServerConnection? {
            if let partner {
                // Probed as the first connection is before each call: one that died with the server
                // (a restart between two pushes) is opened again, not found dead in the middle of a push.
                if await partner.answers(within: server.connectTimeout) { return partner }
                self.partner = nil
                await partner.close()
            }
            guard !partnerUnavailable else { return nil }
            do throws(SyncError) {
                let made = try await ServerConnection.connect(server)
                do throws(SyncError) {
                    try await made.prepareSession()
                } catch {
                    await made.close()
                    throw error
                }
                partner = made
                return made
            } catch {
                partnerUnavailable = true
                return nil
            }
        }

        /// Acknowledged batches a push leaves in the outbox before it removes them in one write. A
        /// removal lost to a crash costs nothing but a batch sent again, which the server recognises
        /// (`strata.clients.pushed_through`) and skips.
        static let batchesPerRemoval = 8

        /// Removes batches the server acknowledged from the outbox (`state.pending` already counts
        /// them out).
        fileprivate func removeAcknowledged(through place: UInt64) async throws(SyncError) {
            try await storeWrite { store in try store.removeCapturedChanges(through: place) }
        }

        /// The outbox's next batch after `place`, and its push built (nil when it sends nothing: its
        /// changes were all to objects deleted since); nil when the outbox holds nothing after `place`.
        ///
        /// A batch of inserts of one type without access rules is read from the file's bytes into its
        /// column arrays (`BulkInsert`), unless `insertsApart` is false or some changes are not to be
        /// sent (refused before).
        fileprivate func preparedBatch(
            after place: UInt64, previousThrough: Int64, insertsApart: Bool = true, claimsLast: Bool = false
        ) throws(SyncError) -> (OutgoingBatch, PreparedPush?)? {
            let (batch, inserts) = try storeCall { () throws(StoreError) in
                try store.outgoingChanges(after: place, limit: server.batchSize) {
                    (typeName, columnNames, capacity) -> BulkInsert? in
                    guard insertsApart, notToSendPlaces.isEmpty, accessRules[typeName] == nil,
                        let type = typeSchemas[typeName], type.properties.map(\.name) == columnNames
                    else { return nil }
                    return BulkInsert(type, capacity: capacity, keyTypes: keyTypes)
                }
            }
            guard batch.through != nil else { return nil }
            if let inserts {
                if let failure = inserts.failure { throw failure }
                guard inserts.log.count > 0 else { return (batch, nil) }  // all deleted since
                return (
                    batch,
                    PreparedPush(
                        inserts, types: typeSchemas, keyTypes: keyTypes, clientID: clientID,
                        previousThrough: previousThrough, claimsLast: claimsLast)
                )
            }
            var changes = batch.changes
            if !notToSendPlaces.isEmpty {
                changes.removeAll { change in
                    notToSendPlaces.contains(change.sequence) && notToSend.contains { $0.matches(change) }
                }
            }
            if changes.isEmpty { return (batch, nil) }
            return (
                batch,
                try PreparedPush(
                    changes, types: typeSchemas, keyTypes: keyTypes, access: accessRules, clientID: clientID,
                    previousThrough: previousThrough)
            )
        }
    }
#endif
