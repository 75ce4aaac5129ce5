#if Sync
    import Foundation
    import PostgresNIO
    @_spi(StrataSync) import Strata

    extension PreparedPush {
        /// The whole push of a batch without access rules as one statement, committed on its own:
        /// one round trip where a transaction takes six (BEGIN, the client's row, the changes' row, a
        /// savepoint, the typed tables, COMMIT), each a wait on the server.
        ///
        /// It writes only when taking the sequence's row found it as the statement's snapshot saw
        /// it, and the client's position before the batch:
        /// - A statement's snapshot is taken before it waits for a lock: a push that committed while
        ///   this one waited for the sequence would be invisible to its typed writes (an update of an
        ///   object that push inserted would find nothing). Its number moved the sequence, so the
        ///   check fails and nothing is written.
        /// - A batch (or part of it) the server accepted already (an acknowledgement lost) fails it too.
        /// - So does a batch sent right behind another (`StoreSync.pushAll`) when that one wrote nothing:
        ///   the client's position must have reached `previousThrough`, the last change of the batch
        ///   before. The batches land in outbox order, whatever happened to the one before.
        ///
        /// Then, and when an object stored whole is there already (a primary-key violation undoes
        /// the statement), the push goes again in a transaction (`ServerConnection.push`). The typed
        /// writes are one per kind and type, to objects each named once (`NetChange`): no two parts
        /// of the statement touch one row, which a statement's parts could not see each other do.
        static func oneStatement(
            log: Log, writes: [TableWrites], clientID: UUID, sequences: Sequences
        ) throws(SyncError) -> PostgresQuery {
            // Each change stores an object of its own, all of one type (inserts only): the objects'
            // images are the changes' payloads, in the same order.
            let payloadsAreImages = writes.count == 1 && writes[0].stored.count == Int(log.count)
            return try oneStatement(log: log, clientID: clientID, sequences: sequences) {
                (binds, granted, payloads) throws(SyncError) in
                var parts: [String] = []
                for write in writes {
                    let table = write.table
                    if !write.deleted.isEmpty {
                        parts.append(try table.delete(write.deleted, into: &binds, onlyIf: granted))
                    }
                    if !write.stored.isEmpty {
                        parts.append(
                            try table.insert(
                                write.stored, images: write.storedImages, into: &binds, onlyIf: granted,
                                boundImages: payloadsAreImages ? payloads : nil))
                    }
                    if !write.set.isEmpty {
                        parts.append(
                            try table.update(write.set, images: write.setImages, into: &binds, onlyIf: granted))
                    }
                }
                return parts
            }
        }

        /// The one statement around the typed tables' parts that `tableParts` builds into the
        /// bindings, given the condition each must write under and the parameter of the changes'
        /// payloads.
        static func oneStatement<Failure: Error>(
            log: Log, clientID: UUID, sequences: Sequences,
            tableParts build: (inout PostgresBindings, _ granted: String, _ payloads: String) throws(Failure) ->
                [String]
        ) throws(Failure) -> PostgresQuery {
            var binds = PostgresBindings()
            let bound = LogParameters(log, clientID: clientID, sequences: sequences, into: &binds)
            let (count, client, first, through, previous) = (
                bound.count, bound.client, bound.first, bound.through, bound.previous
            )
            let (typeNames, kinds, keys, payloads) = (bound.typeNames, bound.kinds, bound.keys, bound.payloads)
            let granted = "EXISTS (SELECT FROM s)"
            let batchLock = batchLock(of: sequences.last, clientID: clientID, into: &binds)
            let sequence = """
                turn AS (SELECT \(batchLock)),
                s AS (
                    UPDATE strata.sequence SET last_seq = last_seq + \(count)
                    WHERE id = 1 AND EXISTS (SELECT FROM turn)
                        AND last_seq = (SELECT v.last_seq FROM strata.sequence AS v WHERE v.id = 1)
                        AND coalesce((SELECT c.pushed_through FROM strata.clients AS c WHERE c.client_id = \(client)), 0)
                            BETWEEN \(previous) AND \(first) - 1
                    RETURNING last_seq)
                """
            let place = """
                c AS (
                    INSERT INTO strata.clients (client_id, pushed_through) SELECT \(client), \(through) FROM s
                    ON CONFLICT (client_id) DO UPDATE SET pushed_through = EXCLUDED.pushed_through, last_push = now())
                """
            let tableParts = try build(&binds, granted, payloads)
            let named = [sequence, place] + tableParts.enumerated().map { "w\($0) AS (\($1))" }
            let sql = """
                WITH \(named.joined(separator: ",\n"))
                INSERT INTO strata.changes
                    (first_seq, last_seq, client_id, client_seq, type_names, object_keys, kinds, payloads)
                SELECT s.last_seq - \(count) + 1, s.last_seq, \(client), \(through), \(typeNames), \(keys), \(kinds),
                    \(payloads)
                FROM s, pg_notify(\(bound.channel(into: &binds)), s.last_seq::text) AS notified
                RETURNING last_seq
                """
            return PostgresQuery(unsafeSQL: sql, binds: binds)
        }

        /// A batch of inserts of one type that takes its place in the sequence last (`BulkInsert`,
        /// `StoreSync.pushAll`): sent on a second connection while the batch before it is still under
        /// way on the first, it inserts its objects first, then waits for that batch to commit (its
        /// lock), then takes the next numbers: two backends insert at once, and only the ends of the
        /// statements run one after the other.
        ///
        /// - It writes only when the client's place, read from its locked row (`FOR UPDATE` gives the
        ///   newest version, where a `WHERE` on it would test the snapshot's and skip the wait's
        ///   outcome), is the last change of the batch before. Else its changes' row gets a NULL
        ///   number (23502) and the whole statement, inserts included, is undone: the client reads
        ///   that as "not written" (`ServerConnection.wroteThrough`).
        /// - Its inserts cannot be hidden by a push that commits meanwhile: an object another push
        ///   stores with the same key makes the insert wait, then fail (23505, undone as well); a
        ///   change of another client to one of these objects cannot see them and is numbered
        ///   before them, so that it changes nothing where it arrives either.
        /// - The client's row must exist before the statement starts (the snapshot it is looked for
        ///   in): a push's first batch never goes this way.
        static func claimingLast(
            _ bulk: BulkInsert, clientID: UUID, sequences: Sequences
        ) -> PostgresQuery {
            var binds = PostgresBindings()
            let bound = LogParameters(bulk.log, clientID: clientID, sequences: sequences, into: &binds)
            let (count, client, first, through, previous) = (
                bound.count, bound.client, bound.first, bound.through, bound.previous
            )
            let (typeNames, kinds, keys, payloads) = (bound.typeNames, bound.kinds, bound.keys, bound.payloads)
            let ownLock = batchLock(of: sequences.last, clientID: clientID, into: &binds)
            let lockBefore = batchLock(of: sequences.previousThrough, clientID: clientID, into: &binds)
            let insert = bulk.table.insert(
                columns: bulk.columns, images: .bound(payloads), into: &binds,
                onlyIf: "EXISTS (SELECT FROM inserting_first)")
            let sql = """
                WITH inserting_first AS (SELECT \(ownLock)),
                w AS (\(insert)
                    RETURNING 1),
                b AS (SELECT \(lockBefore) WHERE (SELECT count(*) FROM w) >= 0),
                p AS (
                    SELECT pushed_through FROM strata.clients WHERE client_id = \(client) AND EXISTS (SELECT FROM b)
                    FOR UPDATE),
                c AS (
                    UPDATE strata.clients SET pushed_through = \(through), last_push = now()
                    WHERE client_id = \(client) AND (SELECT pushed_through FROM p) BETWEEN \(previous) AND \(first) - 1
                    RETURNING 1),
                s AS (UPDATE strata.sequence SET last_seq = last_seq + \(count) WHERE id = 1 AND EXISTS (SELECT FROM c)
                    RETURNING last_seq)
                INSERT INTO strata.changes
                    (first_seq, last_seq, client_id, client_seq, type_names, object_keys, kinds, payloads)
                SELECT claimed.last_seq - \(count) + 1, claimed.last_seq, \(client), \(through), \(typeNames), \(keys),
                    \(kinds), \(payloads)
                FROM (VALUES (1)) AS one LEFT JOIN (
                    SELECT s.last_seq FROM s, pg_notify(\(bound.channel(into: &binds)), s.last_seq::text) AS notified
                ) AS claimed ON true
                RETURNING last_seq
                """
            return PostgresQuery(unsafeSQL: sql, binds: binds)
        }
    }

    extension PreparedPush {
        /// The parameters both forms of the one statement bind (`oneStatement`, `claimingLast`), as
        /// they appear in its text.
        struct LogParameters {
            let count, client, first, through, previous: String
            /// The log's arrays; a log of one type and kind makes its type and kind arrays on the
            /// server (`array_fill`) instead of sending one element per change.
            let typeNames, kinds, keys, payloads: String

            init(_ log: Log, clientID: UUID, sequences: Sequences, into binds: inout PostgresBindings) {
                func parameter(_ value: some PostgresDynamicTypeEncodable) -> String {
                    binds.append(value)
                    return "$\(binds.count)"
                }
                count = parameter(log.count)
                client = parameter(clientID)
                first = parameter(sequences.first)
                through = parameter(sequences.last)
                previous = parameter(sequences.previousThrough)
                if let (typeName, kind) = log.uniform {
                    typeNames = "array_fill(\(parameter(typeName))::text, ARRAY[\(count)::int])"
                    kinds = "array_fill(\(parameter(kind))::text, ARRAY[\(count)::int])"
                } else {
                    typeNames = parameter(log.typeNames)
                    kinds = parameter(log.kinds)
                }
                keys = parameter(log.keys)
                payloads = parameter(log.payloads)
            }

            /// The notification channel's parameter.
            func channel(into binds: inout PostgresBindings) -> String {
                binds.append(ServerSchema.channel)
                return "$\(binds.count)"
            }
        }

        /// `pg_advisory_xact_lock` of a batch of this client's, named by its last change: a batch that
        /// claims last (`PreparedPush.claimingLast`) waits on the one before it until it commits.
        /// Two clients whose ids share their first four bytes only wait on each other's locks a little.
        static func batchLock(of change: Int64, clientID: UUID, into binds: inout PostgresBindings) -> String {
            let id = clientID.uuid
            let space = Int32(bitPattern: UInt32(id.0) << 24 | UInt32(id.1) << 16 | UInt32(id.2) << 8 | UInt32(id.3))
            binds.append(space)
            let spaceParameter = "$\(binds.count)"
            binds.append(Int32(truncatingIfNeeded: change))
            return "pg_advisory_xact_lock(\(spaceParameter), $\(binds.count))"
        }
    }
#endif
