#if Sync
    import Foundation
    import PostgresNIO
    @_spi(StrataSync) import Strata

    /// What the server did with a pushed batch.
    enum PushOutcome: Sendable {
        /// Accepted: the last sequence number given (nil: nothing of it was new).
        case accepted(Int64?)
        /// Nothing written: these changes are to objects this client may not write, or would give
        /// objects away. The batch goes again without them.
        case refused([RefusedChange])
        /// Nothing written by a batch read without its changes (`PreparedPush.readsAgain`): it goes
        /// again read as changes.
        case readAgain
    }

    extension ServerConnection {
        /// Sends a batch of outbox changes: as one statement when it can (`PreparedPush.oneStatement`),
        /// else in a transaction (`pushInTransaction`).
        func push(_ batch: PreparedPush, clientID: UUID, identity: ServerIdentity) async throws(SyncError)
            -> PushOutcome
        {
            try await push(batch, sent: batch.statement.map(send), clientID: clientID, identity: identity)
        }

        /// Finishes the push of a batch whose one statement was sent already (`sent`), or pushes it in a
        /// transaction when it has none, or when its statement wrote nothing.
        func push(_ batch: PreparedPush, sent: SentStatement?, clientID: UUID, identity: ServerIdentity)
            async throws(SyncError) -> PushOutcome
        {
            if let sent, let last = try await wroteThrough(sent) { return .accepted(last) }
            if batch.readsAgain { return .readAgain }
            return try await pushInTransaction(batch, clientID: clientID, identity: identity)
        }

        /// The last number a batch's statement gave, or nil when it wrote nothing: another push took
        /// numbers meanwhile, the server has some of the batch, or the batch before it wrote nothing.
        func wroteThrough(_ sent: SentStatement) async throws(SyncError) -> Int64? {
            do throws(SyncError) {
                return try await rows(of: sent, as: Int64.self).first
            } catch .server(sqlState: "23505", _) {
                // An object stored whole is there already: its push in a transaction replaces it.
            } catch .server(sqlState: "40P01", _) {
                // A deadlock with a try of this batch in a transaction (lost acknowledgement): undone.
            } catch .server(sqlState: "23502", _) {
                // A statement that claims last found the client elsewhere than after the batch before
                // (`PreparedPush.claimingLast`): undone.
            }
            return nil
        }

        /// The client's place on the server: the last of its changes the server holds (0: none).
        func pushedThrough(clientID: UUID) async throws(SyncError) -> Int64 {
            let place = try await rows(
                "SELECT pushed_through FROM strata.clients WHERE client_id = \(clientID)", as: Int64.self)
            return place.first ?? 0
        }

        /// Sends a batch of outbox changes in one transaction: the ones the server has not accepted yet
        /// get the next sequence numbers in `strata.changes` (one row per run of changes with one
        /// audience), then go into the typed tables, and the client's position moves past them. The
        /// sequence's row stays locked until the transaction ends: a push's statements see every
        /// push numbered before it.
        ///
        /// Changes of types with access rules are checked first (`refusals`): when any is refused,
        /// nothing is written and the refusals come back, so that the rest can go without them.
        private func pushInTransaction(_ batch: PreparedPush, clientID: UUID, identity: ServerIdentity)
            async throws(SyncError) -> PushOutcome
        {
            try await transaction { () throws(SyncError) -> PushOutcome in
                // Locks the client's row: a retried batch waits for the first try, then finds it accepted.
                let accepted = try await rows(
                    """
                    INSERT INTO strata.clients (client_id) VALUES (\(clientID))
                    ON CONFLICT (client_id) DO UPDATE SET last_push = now() RETURNING pushed_through
                    """, as: Int64.self)
                let pushedThrough = accepted.first ?? 0
                guard let batch = try batch.after(pushedThrough) else { return .accepted(nil) }
                var audiences: [Audience] = []
                var notices: [(audience: Audience, log: PreparedPush.Log)] = []
                if batch.hasAccessRules {
                    let before = try await accessBefore(batch)
                    let refused = try await refusals(batch, before: before, identity: identity)
                    if !refused.isEmpty { return .refused(refused) }
                    audiences = batch.audiences(before: before, identity: identity)
                    notices = batch.movedNotices(before: before)
                }
                let last = try await appendLog(batch, audiences: audiences, notices: notices, clientID: clientID)
                for step in try batch.tableSteps() {
                    switch step {
                    case .run(let statement): try await execute(statement)
                    case .insert(let insert, let replaced):
                        try await execute("SAVEPOINT strata_insert")
                        do throws(SyncError) {
                            try await execute(insert)
                        } catch .server(sqlState: "23505", _) {  // unique_violation: some are there already
                            try await execute("ROLLBACK TO SAVEPOINT strata_insert")
                            try await execute(try replaced.delete())
                            try await execute(insert)
                        }
                    }
                }
                return .accepted(last)
            }
        }

        /// Numbers the batch's changes and stores them in `strata.changes`: the sequence's row stays
        /// locked until the transaction ends, so pushes commit one at a time, in the order of their
        /// numbers. The client's position and the notification (sent at commit) ride along.
        private func appendLog(
            _ batch: PreparedPush, audiences: [Audience], notices: [(audience: Audience, log: PreparedPush.Log)],
            clientID: UUID
        ) async throws(SyncError) -> Int64? {
            let runs = batch.runs(audiences) + notices.map { ($0.audience, Optional($0.log)) }
            let count = batch.log.count + notices.reduce(0) { $0 + $1.log.count }
            if runs.count == 1, let run = runs.first {  // the usual batch: one statement
                let log = run.log ?? batch.log
                let numbered = try await rows(
                    """
                    WITH s AS (UPDATE strata.sequence SET last_seq = last_seq + \(count) WHERE id = 1 RETURNING last_seq),
                        c AS (UPDATE strata.clients SET pushed_through = \(batch.clientSequence) WHERE client_id = \(clientID))
                    INSERT INTO strata.changes
                        (first_seq, last_seq, client_id, client_seq, type_names, object_keys, kinds, payloads,
                         audience_owner, audience_team)
                    SELECT s.last_seq - \(count) + 1, s.last_seq, \(clientID), \(batch.clientSequence),
                        \(log.typeNames), \(log.keys), \(log.kinds), \(log.payloads), \(run.audience.owner), \(run.audience.team)
                    FROM s, pg_notify(\(ServerSchema.channel), s.last_seq::text) AS notified
                    RETURNING last_seq
                    """, as: Int64.self)
                return numbered.first
            }
            let reserved = try await rows(
                """
                WITH s AS (UPDATE strata.sequence SET last_seq = last_seq + \(count) WHERE id = 1 RETURNING last_seq),
                    c AS (UPDATE strata.clients SET pushed_through = \(batch.clientSequence) WHERE client_id = \(clientID))
                SELECT s.last_seq FROM s, pg_notify(\(ServerSchema.channel), s.last_seq::text) AS notified
                """, as: Int64.self)
            guard let last = reserved.first else { return nil }
            var first = last - count + 1
            for run in runs {
                let log = run.log ?? batch.log
                try await execute(
                    """
                    INSERT INTO strata.changes
                        (first_seq, last_seq, client_id, client_seq, type_names, object_keys, kinds, payloads,
                         audience_owner, audience_team)
                    VALUES (\(first), \(first + log.count - 1), \(clientID), \(batch.clientSequence),
                        \(log.typeNames), \(log.keys), \(log.kinds), \(log.payloads), \(run.audience.owner), \(run.audience.team))
                    """)
                first += log.count
            }
            return last
        }

        /// The owner and team the server's rows give the batch's objects of types with rules (the
        /// rows this role can see), by type and primary key text.
        private func accessBefore(_ batch: PreparedPush) async throws(SyncError) -> [String: [String: Audience]] {
            var found: [String: [String: Audience]] = [:]
            for (typeName, keys) in batch.keysByRuledType {
                guard let rule = batch.access[typeName], let type = batch.types[typeName] else { continue }
                let key = ServerSchema.quoted(type.properties[rule.keyIndex].name)
                let keyType = ServerSchema.sqlType(type.properties[rule.keyIndex].type, keyTypes: batch.keyTypes)
                let owner = ServerSchema.quoted(rule.access.ownerProperty)
                let team = rule.access.teamProperty.map(ServerSchema.quoted) ?? "NULL::text"
                var binds = PostgresBindings(capacity: 1)
                binds.append(keys)
                let rows = try await rows(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT \(key)::text, \(owner), \(team) FROM \(ServerSchema.table(typeName))
                            WHERE \(key) = ANY ($1::text[]::\(keyType)[])
                            """, binds: binds), as: (String, String?, String?).self)
                found[typeName] = Dictionary(
                    rows.map { ($0.0, Audience(owner: $0.1, team: $0.2)) }, uniquingKeysWith: { first, _ in first })
            }
            return found
        }

        /// The batch's changes that may not go: to an object of another role (that this role cannot
        /// see: the server's `strata.inaccessible_keys` says), or leaving an object with an owner and
        /// team this role is neither nor in.
        private func refusals(
            _ batch: PreparedPush, before: [String: [String: Audience]], identity: ServerIdentity
        ) async throws(SyncError) -> [RefusedChange] {
            var refusedKeys: [String: [String: String]] = [:]
            for (typeName, keys) in batch.keysByRuledType {
                let hidden = try await rows(
                    "SELECT strata.inaccessible_keys(\(typeName), \(keys))", as: [String].self)
                for key in hidden.first ?? [] {
                    refusedKeys[typeName, default: [:]][key] = "the object belongs to another user"
                }
            }
            let after = batch.finalAudiences(before: before)
            for (change, audience) in zip(batch.changes, after) where batch.access[change.typeName] != nil {
                let key = RefusedChange.text(change.primaryKey)
                guard refusedKeys[change.typeName]?[key] == nil, change.kind != .delete, let audience,
                    !identity.mayAccess(owner: audience.owner, team: audience.team)
                else { continue }
                refusedKeys[change.typeName, default: [:]][key] =
                    "the object would belong to \(audience.owner ?? "nobody")"
                    + (audience.team.map { " and team \($0)" } ?? "") + ", and \(identity.role) is neither"
            }
            return batch.changes.compactMap { change in
                refusedKeys[change.typeName]?[RefusedChange.text(change.primaryKey)].map {
                    RefusedChange(change, reason: $0)
                }
            }
        }
    }

    /// Who may see a change: an owner role and a team (both nil: everyone).
    struct Audience: Sendable, Hashable {
        var owner: String?
        var team: String?

        static let everyone = Audience(owner: nil, team: nil)
    }

    extension PreparedPush {
        /// Whether a change of the batch is of a type with access rules.
        var hasAccessRules: Bool { Self.hasAccessRules(changes, access) }

        static func hasAccessRules(_ changes: [OutgoingChange], _ access: [String: AccessRule]) -> Bool {
            !access.isEmpty && changes.contains { access[$0.typeName] != nil }
        }

        /// The primary keys (as text) of the batch's objects of each type with rules.
        var keysByRuledType: [(String, [String])] {
            var keys: [String: [String]] = [:]
            var seen: Set<[String]> = []
            for change in changes where access[change.typeName] != nil {
                let key = RefusedChange.text(change.primaryKey)
                if seen.insert([change.typeName, key]).inserted { keys[change.typeName, default: []].append(key) }
            }
            return keys.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        }

        /// Per change, the audience of its object once the batch is applied: the owner and team the
        /// batch leaves it with (the server's row's, for what the batch does not set); nil when neither
        /// says (an update or delete of an object the server does not have). A change of a type
        /// without rules goes to everyone.
        func finalAudiences(before: [String: [String: Audience]]) -> [Audience?] {
            var final: [String: [String: Audience?]] = [:]
            for change in changes {
                guard let rule = access[change.typeName], let type = types[change.typeName] else { continue }
                let key = RefusedChange.text(change.primaryKey)
                var audience = final[change.typeName]?[key] ?? before[change.typeName]?[key]
                for property in change.properties {
                    let value: String?? =
                        switch property.value {
                        case .string(let text): .some(text)
                        case .null: .some(nil)
                        default: .none
                        }
                    guard let value else { continue }
                    if property.name == type.properties[rule.ownerIndex].name {
                        audience = Audience(owner: value, team: audience?.team)
                    } else if let team = rule.teamIndex, property.name == type.properties[team].name {
                        audience = Audience(owner: audience?.owner, team: value)
                    }
                }
                final[change.typeName, default: [:]][key] = .some(audience)
            }
            return changes.map { change in
                guard access[change.typeName] != nil else { return .everyone }
                return final[change.typeName]?[RefusedChange.text(change.primaryKey)] ?? nil
            }
        }

        /// The audience of each change's row in `strata.changes`: its object's (`finalAudiences`), or
        /// for an object neither the server nor the batch says anything of, this role's own.
        func audiences(before: [String: [String: Audience]], identity: ServerIdentity) -> [Audience] {
            finalAudiences(before: before).map { $0 ?? Audience(owner: identity.role, team: nil) }
        }

        /// For each object of a type with rules whose owner or team the batch changes, a `moved`
        /// notice to its audience before and to its audience after (numbered after the batch's
        /// changes): whoever sees it must ask the server for it, to drop it (no longer theirs to see)
        /// or to get it whole (theirs from now on; an update alone would find nothing to update).
        func movedNotices(before: [String: [String: Audience]]) -> [(audience: Audience, log: Log)] {
            let after = finalAudiences(before: before)
            var notices: [(audience: Audience, log: Log)] = []
            var noticed: Set<[String]> = []
            for (change, audience) in zip(changes, after).reversed() {  // each object's final audience
                guard access[change.typeName] != nil, let audience,
                    noticed.insert([change.typeName, RefusedChange.text(change.primaryKey)]).inserted,
                    let previous = before[change.typeName]?[RefusedChange.text(change.primaryKey)],
                    previous != audience
                else { continue }
                let notice = Log(moved: change)
                notices += [(previous, notice), (audience, notice)]
            }
            return notices.reversed()
        }

        /// The batch cut into runs of consecutive changes with one audience (one row of
        /// `strata.changes` each); with no audiences given, one run to everyone of the whole log.
        func runs(_ audiences: [Audience]) -> [(audience: Audience, log: Log?)] {
            guard !audiences.isEmpty else { return [(.everyone, nil)] }
            var runs: [(audience: Audience, log: Log?)] = []
            var start = 0
            while start < changes.count {
                var end = start + 1
                while end < changes.count, audiences[end] == audiences[start] { end += 1 }
                let whole = start == 0 && end == changes.count
                runs.append((audiences[start], whole ? nil : Log(changes[start..<end])))
                start = end
            }
            return runs
        }
    }
#endif
