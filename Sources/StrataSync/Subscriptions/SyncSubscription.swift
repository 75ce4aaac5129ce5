#if Sync
    import Foundation
    @_spi(StrataSync) import Strata

    /// A named condition on the objects of a partially synced type (`StoreSync.subscribe`): the
    /// server sends this client the objects that match at least one of their type's subscriptions,
    /// and nothing else of that type (Realm's Flexible Sync).
    public struct SyncSubscription: Sendable, Hashable, Codable, CustomStringConvertible {
        /// Unique among the sync's subscriptions; subscribing again under a name replaces its condition.
        public let name: String
        public let typeName: String
        /// The condition, as text (`listID == "groceries"`).
        public let query: String
        /// The condition as the server evaluates it: SQL over the type's table (`t`).
        let sql: String

        public var description: String { "\(name): \(typeName) where \(query)" }
    }

    /// The subscriptions of a sync and what is left to do about them, kept in the file (a sync
    /// setting) so that they outlive the process: one part, its state in one place.
    struct SubscriptionSet: Codable, Equatable {
        /// The types synced only as far as subscriptions reach.
        var partialTypes: [String] = []
        var subscriptions: [SyncSubscription] = []
        /// Types whose objects must be read again from the server (their subscriptions, or whether
        /// they are partial, changed since the last read): objects that match now arrive, objects that
        /// no longer match leave the file.
        var stale: Set<String> = []

        static let setting = "subscriptions"

        static func load(from store: Store) throws(StoreError) -> SubscriptionSet {
            guard let text = try store.syncSetting(setting) else { return SubscriptionSet() }
            // A setting that cannot be read counts as none: every partial type is read again.
            return (try? JSONDecoder().decode(SubscriptionSet.self, from: Data(text.utf8))) ?? SubscriptionSet()
        }

        /// Stores the set (in the open write).
        func save(in store: Store) throws(StoreError) {
            let data = (try? JSONEncoder().encode(self)) ?? Data("{}".utf8)
            try store.setSyncSetting(Self.setting, to: String(decoding: data, as: UTF8.self))
        }

        /// Which objects of `typeName` the server sends this client, as SQL over its table `t`: nil for
        /// a type synced whole, `FALSE` for a partial type without subscriptions.
        func serverCondition(of typeName: String) -> String? {
            guard partialTypes.contains(typeName) else { return nil }
            let conditions = subscriptions.filter { $0.typeName == typeName }.map { "(\($0.sql))" }
            return conditions.isEmpty ? "FALSE" : conditions.joined(separator: " OR ")
        }

        /// Every partial type's condition (`serverCondition(of:)`).
        var serverConditions: [String: String] {
            Dictionary(uniqueKeysWithValues: partialTypes.map { ($0, serverCondition(of: $0) ?? "FALSE") })
        }

        /// Makes `types` the partial ones: a type that became partial, or whole, is read again.
        mutating func setPartialTypes(_ types: [String]) {
            let before = Set(partialTypes)
            let after = Set(types)
            stale.formUnion(before.symmetricDifference(after))
            partialTypes = types
            subscriptions.removeAll { !after.contains($0.typeName) }
        }

        /// Adds `subscription`, or replaces the one of its name. Returns whether anything changed.
        mutating func insert(_ subscription: SyncSubscription) -> Bool {
            if let index = subscriptions.firstIndex(where: { $0.name == subscription.name }) {
                let old = subscriptions[index]
                guard old != subscription else { return false }
                subscriptions[index] = subscription
                stale.formUnion([old.typeName, subscription.typeName])
                return true
            }
            subscriptions.append(subscription)
            stale.insert(subscription.typeName)
            return true
        }

        /// Removes the subscriptions `isRemoved` picks. Returns whether any was there.
        mutating func remove(where isRemoved: (SyncSubscription) -> Bool) -> Bool {
            let removed = subscriptions.filter(isRemoved)
            subscriptions.removeAll(where: isRemoved)
            stale.formUnion(removed.map(\.typeName))
            return !removed.isEmpty
        }
    }
#endif
