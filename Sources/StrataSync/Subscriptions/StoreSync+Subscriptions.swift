#if Sync
    import Foundation
    @_spi(StrataSync) import Strata

    extension StoreSync {
        // MARK: Subscribing

        /// The subscriptions of this sync, in the order they were made (kept in the file).
        public var subscriptions: [SyncSubscription] { subscriptionSet.subscriptions }

        /// Asks the server for the objects of a partial type that match `condition`, from now on: they
        /// arrive (and, when `waitForSync`, have arrived when this returns), changes to them follow,
        /// and an object that stops matching every subscription of its type (changed here or
        /// elsewhere) leaves this file, without a delete being sent. Subscribing again under the same
        /// name replaces the condition.
        ///
        /// ```swift
        /// let sync = try await StoreSync(
        ///     configuration: configuration, server: server, types: [Todo.self], partial: [Todo.self])
        /// try await sync.subscribe(Todo.self, named: "groceries", where: { $0.listID == "groceries" })
        /// ```
        /// The condition is a `where` of the type's own values (comparisons, `in`, string matches,
        /// `&&`, `||`, `!`), which the server evaluates in SQL as Strata's queries do; a link leads to
        /// an object only if a subscription of its type brings it (Docs/Sync.md, "Subscriptions").
        ///
        /// - Parameter name: names the subscription (the query's text when nil).
        /// - Throws: `.unsupportedQuery` for a type not partial, or a condition the server cannot
        ///   evaluate (through a link, on a collection); with `waitForSync`, what `synchronize()`
        ///   throws (the subscription is kept: its objects arrive at the next synchronization).
        @discardableResult
        public func subscribe<T: Object>(
            _ type: T.Type, named name: String? = nil, where condition: (Query<T>) -> Query<Bool>,
            waitForSync: Bool = true
        ) async throws(SyncError) -> SyncSubscription {
            let selected: SyncCondition
            do {
                selected = try store.objects(T.self).where(condition).syncCondition()
            } catch {
                throw .unsupportedQuery("\(error)")
            }
            return try await subscribe(String(describing: type), name: name, selected, waitForSync: waitForSync)
        }

        /// `subscribe(_:named:where:waitForSync:)` with the condition in the string query language
        /// (`"listID == $0"`, arguments as `$0`, `$1`…).
        ///
        /// - Throws: `.store(.invalidArgument)` for a query that does not parse or names what the type
        ///   lacks; otherwise as `subscribe(_:named:where:waitForSync:)`.
        @discardableResult
        public func subscribe<T: Object>(
            _ type: T.Type, named name: String? = nil, where query: String, _ arguments: any Sendable...,
            waitForSync: Bool = true
        ) async throws(SyncError) -> SyncSubscription {
            try await subscribe(type, named: name, where: query, arguments: arguments, waitForSync: waitForSync)
        }

        /// `subscribe(_:named:where:_:waitForSync:)` with the arguments as an array (what a caller
        /// building a query at run time has).
        @discardableResult
        public func subscribe<T: Object>(
            _ type: T.Type, named name: String? = nil, where query: String, arguments: [any Sendable],
            waitForSync: Bool = true
        ) async throws(SyncError) -> SyncSubscription {
            let results = try storeCall { () throws(StoreError) in
                try store.objects(T.self).where(query, arguments: arguments)
            }
            let condition: SyncCondition
            do {
                condition = try results.syncCondition()
            } catch {
                throw .unsupportedQuery("\(error)")
            }
            return try await subscribe(String(describing: type), name: name, condition, waitForSync: waitForSync)
        }

        private func subscribe(
            _ typeName: String, name: String?, _ condition: SyncCondition, waitForSync: Bool
        ) async throws(SyncError) -> SyncSubscription {
            guard subscriptionSet.partialTypes.contains(typeName) else {
                throw .unsupportedQuery(
                    "\(typeName) is synced whole: name it in StoreSync's partial: to sync it by subscription")
            }
            let text = SubscriptionSQL.text(of: condition)
            let subscription = SyncSubscription(
                name: name ?? "\(typeName) where \(text)", typeName: typeName, query: text,
                sql: try SubscriptionSQL.condition(condition, keyTypes: keyTypes))
            if subscriptionSet.insert(subscription) { try await saveSubscriptions() }
            if waitForSync { try await synchronize() }
            return subscription
        }

        /// Removes the subscription named `name`: the objects only it brought leave this file (no
        /// delete is sent), when the sync next pulls (before this returns when `waitForSync`).
        /// Returns whether there was one.
        ///
        /// - Throws: as `synchronize()` when `waitForSync`; `.store` when the file cannot be written.
        @discardableResult
        public func unsubscribe(named name: String, waitForSync: Bool = true) async throws(SyncError) -> Bool {
            try await unsubscribe(waitForSync: waitForSync) { $0.name == name }
        }

        /// Removes every subscription of `type` (none of its objects stay).
        ///
        /// - Throws: as `unsubscribe(named:waitForSync:)`.
        @discardableResult
        public func unsubscribeAll(ofType type: Object.Type, waitForSync: Bool = true) async throws(SyncError) -> Bool {
            let typeName = String(describing: type)
            return try await unsubscribe(waitForSync: waitForSync) { $0.typeName == typeName }
        }

        private func unsubscribe(waitForSync: Bool, _ isRemoved: (SyncSubscription) -> Bool) async throws(SyncError)
            -> Bool
        {
            guard subscriptionSet.remove(where: isRemoved) else { return false }
            try await saveSubscriptions()
            if waitForSync { try await synchronize() }
            return true
        }

        // MARK: The part's work in a synchronization

        /// Reads the subscriptions kept in the file, and makes `partial` the partial types (checked:
        /// synced, keyed as the server can compare).
        func setUpSubscriptions(partial: [String]) throws(SyncError) {
            for name in partial {
                switch keyTypes[name] {
                case .integer, .string, .uuid: break
                case nil: throw .unsupportedType("\(name) is partial but not among the synced types")
                default: throw .unsupportedType("\(name): a partial type needs an Int, String or UUID primary key")
                }
            }
            var set = try storeCall { () throws(StoreError) in try SubscriptionSet.load(from: store) }
            set.setPartialTypes(partial)
            let changed = set != subscriptionSet
            subscriptionSet = set
            if changed {
                try storeCall { () throws(StoreError) in try Self.typed { try store.write { try set.save(in: store) } }
                }
            }
        }

        func saveSubscriptions() async throws(SyncError) {
            let set = subscriptionSet
            try await storeWrite { store in try set.save(in: store) }
        }

        /// The partial types, as a pull sends their conditions.
        func partialTypes() -> [String: ServerConnection.PartialType] {
            subscriptionSet.serverConditions.mapValues(ServerConnection.PartialType.init(condition:))
        }

        /// Reads the types whose subscriptions changed again (`SubscriptionSet.stale`), without moving
        /// the position. A new file skips it: its first pull starts over from the server's tables.
        func readStaleTypesAgain(_ connection: ServerConnection) async throws(SyncError) {
            guard !subscriptionSet.stale.isEmpty else { return }
            let position = try storeCall { () throws(StoreError) in try store.syncPosition() }
            if position > 0 {
                let stale = typeNames.filter(subscriptionSet.stale.contains)
                try await startOver(connection, types: stale, from: position, movingPosition: false)
            }
            subscriptionSet.stale = []
            try await saveSubscriptions()
        }

        /// `deletes` without those of objects the outbox holds a change of: such an object stays until
        /// its change is pushed (a later pull decides again), so that no local change is lost.
        func withoutPendingObjects(_ deletes: [IncomingChange]) throws(SyncError) -> [IncomingChange] {
            guard !deletes.isEmpty else { return [] }
            let pending = try storeCall { () throws(StoreError) in try store.capturedChanges() }
            guard !pending.isEmpty else { return deletes }
            let held = Set(pending.map { PendingObject(typeName: $0.typeName, key: $0.key) })
            return deletes.filter { !held.contains(PendingObject(typeName: $0.typeName, key: $0.key)) }
        }

        private struct PendingObject: Hashable {
            let typeName: String
            let key: [UInt8]
        }
    }
#endif
