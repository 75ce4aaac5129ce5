#if Sync
    import Foundation
    import PostgresNIO
    @_spi(StrataSync) import Strata

    /// What a batch does to one object of the typed tables, its changes taken together in order: an
    /// object is at last deleted, stored whole (inserted, perhaps then updated), or has some properties
    /// set. (One statement per kind and type then does the batch; PostgreSQL's `ON CONFLICT` cannot
    /// touch a row twice in one statement.)
    enum NetChange {
        case delete
        /// Every column's value (by column number).
        case store([SyncValue?])
        /// The values of the columns set (by column number; nil: not set).
        case set([SyncValue?])

        /// `change` on top of this; `values` are the change's properties by column number.
        mutating func apply(_ change: OutgoingChange, values: [SyncValue?]) {
            func merged(_ base: [SyncValue?]) -> [SyncValue?] {
                zip(base, values).map { base, new in Self.merged(new, over: base) }
            }
            switch (change.kind, self) {
            case (.delete, _): self = .delete
            case (.insert, _): self = .store(values)
            case (.update, .delete): break  // an update of a deleted object does nothing
            case (.update, .store(let stored)): self = .store(merged(stored))
            case (.update, .set(let set)): self = .set(merged(set))
            }
        }

        init(_ change: OutgoingChange, values: [SyncValue?]) {
            self = .set(values)
            apply(change, values: values)
        }

        /// Whether the object is stored whole (its image is its every property).
        var isStore: Bool {
            if case .store = self { return true }
            return false
        }

        /// A later value of a column on top of an earlier one: a Map patch goes onto the whole Map or
        /// the earlier patch (its keys win); anything else replaces.
        static func merged(_ new: SyncValue?, over base: SyncValue?) -> SyncValue? {
            guard case .mapPatch(let set, let removed) = new, let base else { return new ?? base }
            switch base {
            case .map(var entries):
                for key in removed { entries.removeValue(forKey: key) }
                entries.merge(set) { $1 }
                return .map(entries)
            case .mapPatch(var earlierSet, let earlierRemoved):
                for key in removed { earlierSet.removeValue(forKey: key) }
                earlierSet.merge(set) { $1 }
                let stillRemoved = earlierRemoved.filter { set[$0] == nil && !removed.contains($0) }
                return .mapPatch(set: earlierSet, removed: stillRemoved + removed)
            default:
                return new
            }
        }
    }

    /// A batch of outbox changes with its statements built: the work a push does on the client, done
    /// while the server works on the batch before (see `StoreSync.pushAll`).
    struct PreparedPush: Sendable {
        /// Where a batch stands in the outbox's order (`oneStatement`).
        struct Sequences: Sendable {
            /// The outbox places of the batch's first and last changes.
            var first: Int64
            var last: Int64
            /// The last change of the batch sent before this one (0: none).
            var previousThrough: Int64
        }

        /// The batch's part of `strata.changes`: one element per change.
        struct Log: Sendable {
            private(set) var count: Int64 = 0
            private(set) var keys = ColumnArray(.bytea)
            private(set) var payloads = ColumnArray(.bytea)
            /// The type and kind of every change, while they all have one (a batch of inserts of one
            /// type): a statement then makes those arrays on the server (`array_fill`) instead of
            /// sending and parsing one element per change.
            private(set) var uniform: (typeName: String, kind: String)?
            /// The types and kinds, once they differ.
            private var mixed: (typeNames: ColumnArray, kinds: ColumnArray)?

            /// An empty log, for `append(_:)`.
            init() {}

            /// Adds `change`.
            mutating func append(_ change: OutgoingChange) {
                append(typeName: change.typeName, key: change.key, kind: ServerConnection.kindName(change.kind)) {
                    $0.append(bytes: change.payload)
                }
            }

            /// Adds the insert of an object of stored key `key` and payload `payload`.
            mutating func appendInsert(typeName: String, key: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) {
                append(typeName: typeName, key: key, kind: ServerConnection.kindName(.insert)) {
                    $0.append(raw: payload)
                }
            }

            /// The log of `changes`, in order.
            init<Changes: Collection<OutgoingChange>>(_ changes: Changes) {
                self.init()
                for change in changes { append(change) }
            }

            /// A `moved` notice of `change`'s object: no payload (`PreparedPush.movedNotices`).
            init(moved change: OutgoingChange) {
                append(typeName: change.typeName, key: change.key, kind: "moved") { $0.append(bytes: []) }
            }

            private mutating func append(
                typeName: String, key: some Collection<UInt8>, kind: String, payload: (inout ColumnArray) -> Void
            ) {
                if count == 0 {
                    uniform = (typeName, kind)
                } else if let (uniformType, uniformKind) = uniform, uniformType != typeName || uniformKind != kind {
                    mixed = (Self.repeated(uniformType, count), Self.repeated(uniformKind, count))
                    uniform = nil
                }
                if mixed != nil {
                    mixed!.typeNames.append(text: typeName)
                    mixed!.kinds.append(text: kind)
                }
                count += 1
                keys.append(bytes: key)
                payload(&payloads)
            }

            /// The type of each change.
            var typeNames: ColumnArray { mixed?.typeNames ?? Self.repeated(uniform?.typeName, count) }
            /// The kind of each change.
            var kinds: ColumnArray { mixed?.kinds ?? Self.repeated(uniform?.kind, count) }

            private static func repeated(_ text: String?, _ count: Int64) -> ColumnArray {
                var array = ColumnArray(.text, capacity: Int(count))
                if let text { for _ in 0..<count { array.append(text: text) } }
                return array
            }
        }

        let changes: [OutgoingChange]
        let types: [String: SyncTypeSchema]
        let keyTypes: [String: SyncType]
        /// The access rules of the synced types that have one, by type name.
        let access: [String: AccessRule]
        /// The outbox place of the batch's last change (the client's position on the server after it).
        let clientSequence: Int64
        let log: Log
        let clientID: UUID
        /// The whole push as one statement (`oneStatement`); nil for a batch with changes of types
        /// with access rules, which is checked first in a transaction (`ServerConnection.push`).
        let statement: PostgresQuery?
        /// Whether the batch was read without its changes (`init(_:types:keyTypes:clientID:previousThrough:)`):
        /// it must be read again as changes to go any other way than its statement.
        let readsAgain: Bool
        /// Whether its statement inserts first and takes its numbers last (`claimingLast`): it may go
        /// on another connection than the batch before it.
        private(set) var claimsLast = false
        /// Per type: the objects deleted, stored whole, with some properties set (nil for a bulk
        /// insert, which needs them only when the push goes as a transaction: made then).
        private let builtWrites: [TableWrites]?
        /// The statements of a push in a transaction, built beforehand for a batch that takes no other way.
        private let builtSteps: [TableStep]?

        /// - Throws: `.unsupportedType` for a change to a type outside `types`, or a value that is not
        ///   of its property's type.
        /// `previousThrough` is the last change of the batch sent before this one on the connection
        /// (0: none), which the server must hold before this one's statement writes.
        init(
            _ changes: [OutgoingChange], types: [String: SyncTypeSchema], keyTypes: [String: SyncType],
            access: [String: AccessRule] = [:], clientID: UUID, previousThrough: Int64 = 0
        ) throws(SyncError) {
            self.changes = changes
            self.types = types
            self.keyTypes = keyTypes
            self.access = access
            self.clientID = clientID
            clientSequence = Int64(truncatingIfNeeded: changes.last?.sequence ?? 0)
            let sequences = Sequences(
                first: Int64(truncatingIfNeeded: changes.first?.sequence ?? 0), last: clientSequence,
                previousThrough: previousThrough)
            readsAgain = false
            let ruled = Self.hasAccessRules(changes, access)
            if !ruled, let bulk = try BulkInsert(changes, types: types, keyTypes: keyTypes) {
                log = bulk.log
                builtWrites = nil
                builtSteps = nil
                statement = Self.oneStatement(bulk, clientID: clientID, sequences: sequences)
                return
            }
            log = Log(changes)
            let writes = try Self.tableWrites(changes, types: types, keyTypes: keyTypes)
            builtWrites = writes
            if ruled {
                statement = nil
                builtSteps = try Self.tableSteps(writes)
            } else {
                statement = try Self.oneStatement(log: log, writes: writes, clientID: clientID, sequences: sequences)
                builtSteps = nil
            }
        }

        /// A batch of inserts read from the file's bytes (`BulkInsert` as an `OutgoingInsertSink`), of a
        /// type without access rules: its one statement only, which claims its numbers last
        /// (`claimingLast`) when `claimsLast`. It keeps no changes: when the statement writes nothing,
        /// the batch is read again as changes (`PushOutcome.readAgain`).
        init(
            _ bulk: BulkInsert, types: [String: SyncTypeSchema], keyTypes: [String: SyncType], clientID: UUID,
            previousThrough: Int64, claimsLast: Bool = false
        ) {
            changes = []
            self.types = types
            self.keyTypes = keyTypes
            access = [:]
            self.clientID = clientID
            readsAgain = true
            let first = Int64(truncatingIfNeeded: bulk.sequences?.first ?? 0)
            clientSequence = Int64(truncatingIfNeeded: bulk.sequences?.last ?? 0)
            log = bulk.log
            builtWrites = nil
            builtSteps = nil
            let sequences = Sequences(first: first, last: clientSequence, previousThrough: previousThrough)
            self.claimsLast = claimsLast
            statement =
                claimsLast
                ? Self.claimingLast(bulk, clientID: clientID, sequences: sequences)
                : Self.oneStatement(bulk, clientID: clientID, sequences: sequences)
        }

        private static func oneStatement(_ bulk: BulkInsert, clientID: UUID, sequences: Sequences) -> PostgresQuery {
            oneStatement(log: bulk.log, clientID: clientID, sequences: sequences) { (binds, granted, payloads) in
                [bulk.table.insert(columns: bulk.columns, images: .bound(payloads), into: &binds, onlyIf: granted)]
            }
        }

        /// The batch without the changes at or before the client's position on the server (those of
        /// a try whose acknowledgement was lost); nil when none is left.
        func after(_ pushedThrough: Int64) throws(SyncError) -> PreparedPush? {
            // The changes are in outbox order: when the first is new, all are (the usual case).
            if let first = changes.first, Int64(truncatingIfNeeded: first.sequence) > pushedThrough { return self }
            let fresh = changes.filter { Int64(truncatingIfNeeded: $0.sequence) > pushedThrough }
            if fresh.isEmpty { return nil }
            return try PreparedPush(fresh, types: types, keyTypes: keyTypes, access: access, clientID: clientID)
        }

        /// The statements of a push in a transaction, after its changes' row: per type, the deletes,
        /// the inserts (replacing objects there already when refused), the partial updates.
        func tableSteps() throws(SyncError) -> [TableStep] {
            if let builtSteps { return builtSteps }
            return try Self.tableSteps(tableWrites())
        }

        /// Per type: the objects deleted, stored whole, with some properties set.
        func tableWrites() throws(SyncError) -> [TableWrites] {
            if let builtWrites { return builtWrites }
            return try Self.tableWrites(changes, types: types, keyTypes: keyTypes)
        }

        private static func tableSteps(_ writes: [TableWrites]) throws(SyncError) -> [TableStep] {
            var steps: [TableStep] = []
            for write in writes {
                let table = write.table
                if !write.deleted.isEmpty { steps.append(.run(try table.delete(write.deleted))) }
                if !write.stored.isEmpty {
                    steps.append(
                        .insert(
                            try table.insert(write.stored, images: write.storedImages),
                            replacing: ReplacedRows(
                                table: table, keys: write.stored.map { $0[table.keyIndex] ?? .null })))
                }
                if !write.set.isEmpty { steps.append(.run(try table.update(write.set, images: write.setImages))) }
            }
            return steps
        }

        /// What `changes` (in order) do to the typed tables of their types, per type: the objects
        /// deleted, those stored whole (inserted, perhaps then updated), those with some properties set.
        private static func tableWrites(
            _ changes: [OutgoingChange], types: [String: SyncTypeSchema], keyTypes: [String: SyncType]
        ) throws(SyncError) -> [TableWrites] {
            /// One type's changes taken together per object, objects in the order first seen.
            struct Group {
                let table: TypedTable
                var keys: [SyncValue] = []
                var nets: [NetChange] = []
                /// Per object, its image after its last change (none once deleted).
                var images: [[UInt8]?] = []
                /// Where an object's key and net change are in `keys` and `nets`.
                var position: [SyncValue: Int] = [:]
            }
            var groups: [Group] = []
            var groupOfType: [String: Int] = [:]
            var last: (name: String, group: Int)?
            for change in changes {
                let index: Int
                if let last, last.name == change.typeName {
                    index = last.group
                } else if let known = groupOfType[change.typeName] {
                    index = known
                } else {
                    guard let type = types[change.typeName] else {
                        throw .unsupportedType("\(change.typeName) is not among this client's synced types")
                    }
                    index = groups.count
                    groupOfType[change.typeName] = index
                    var group = Group(table: TypedTable(type, keyTypes: keyTypes))
                    group.keys.reserveCapacity(changes.count)
                    group.nets.reserveCapacity(changes.count)
                    group.position.reserveCapacity(changes.count)
                    groups.append(group)
                }
                last = (change.typeName, index)
                let values = groups[index].table.columnValues(change.properties)
                // One hash of the key for an object first seen (the usual case), two for one seen before.
                let fresh = groups[index].nets.count
                if let seen = groups[index].position.updateValue(fresh, forKey: change.primaryKey) {
                    groups[index].position[change.primaryKey] = seen
                    let whole = groups[index].nets[seen].isStore
                    groups[index].nets[seen].apply(change, values: values)
                    groups[index].images[seen] = try imageAfter(
                        change, image: groups[index].images[seen], isWhole: whole)
                } else {
                    groups[index].keys.append(change.primaryKey)
                    groups[index].nets.append(NetChange(change, values: values))
                    groups[index].images.append(try imageAfter(change, image: nil, isWhole: false, firstSeen: true))
                }
            }
            return groups.map { group in
                var write = TableWrites(table: group.table)
                for ((key, net), image) in zip(zip(group.keys, group.nets), group.images) {
                    switch net {
                    case .delete: write.deleted.append(key)
                    case .store(let values):
                        write.stored.append(values)
                        write.storedImages.append(image ?? [])
                    case .set(let values):
                        guard values.indices.contains(where: { $0 != group.table.keyIndex && values[$0] != nil })
                        else { continue }
                        write.set.append((key, values))
                        write.setImages.append(image ?? [])
                    }
                }
                return write
            }
        }
    }

    /// What a push does to one type's table: each object of the batch is deleted, stored whole (with
    /// its image), or has some properties set (with its image when read).
    struct TableWrites: Sendable {
        let table: TypedTable
        var deleted: [SyncValue] = []
        var stored: [[SyncValue?]] = []
        var storedImages: [[UInt8]] = []
        var set: [(key: SyncValue, values: [SyncValue?])] = []
        var setImages: [[UInt8]] = []
    }

    extension PreparedPush {
        /// What the batch sends for an object's image after `change`, given what it sent before
        /// (`image`, the whole object when `isWhole`, else an update's patch): an insert's payload (every property: the whole image); an update's payload,
        /// applied to that (`ChangePayload.patched`), or alone for an object first seen (the server
        /// patches the stored image with it: `strata.patched_image`); none after a delete (an update
        /// of a deleted object does nothing).
        static func imageAfter(_ change: OutgoingChange, image: [UInt8]?, isWhole: Bool, firstSeen: Bool = false)
            throws(SyncError) -> [UInt8]?
        {
            switch change.kind {
            case .insert: return change.payload
            case .delete: return nil
            case .update:
                if firstSeen { return change.payload }
                guard let image else { return nil }
                do {
                    return try ChangePayload.patched(image, with: change.payload, baseIsImage: isWhole)
                } catch {
                    throw .store(.corrupted("an update of \(change.typeName) in the outbox: \(error.message)"))
                }
            }
        }
    }

    /// One step of a push in a typed table.
    enum TableStep: Sendable {
        case run(PostgresQuery)
        /// Objects stored whole (inserted by the client): a plain insert, which the server's primary key
        /// refuses when one of them is there already (another client made an object of the same key, or
        /// this one deleted and made it again); then the rows are deleted and inserted again. Both beat
        /// `INSERT … ON CONFLICT DO UPDATE` (1.5-1.8x a plain insert in PostgreSQL 15 here).
        case insert(PostgresQuery, replacing: ReplacedRows)
    }

    /// The rows an insert step deletes first when the plain insert was refused: its statement is built
    /// only then (rarely), not for every push.
    struct ReplacedRows: Sendable {
        let table: TypedTable
        let keys: [SyncValue]

        func delete() throws(SyncError) -> PostgresQuery { try table.delete(keys) }
    }

#endif
