import Foundation
import StrataTestSupport

@testable import Strata

extension Fixture {
    /// A closed store of 600 people (rows on several pages under a branch page, an index) and 60 dogs,
    /// dog n owned by person 10 × n + 1: what the damage, open-check and salvage tests start from.
    static func closedStoreOfPeople() throws -> Fixture {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        try store.write {
            for id in 1...600 { try store.add(Person(id: id, name: "person \(id)", age: id % 90)) }
            for index in 0..<60 {
                let owner = store.object(ofType: Person.self, forPrimaryKey: index * 10 + 1)
                try store.add(Dog(name: "dog \(index)", owner: owner))
            }
        }
        return fixture
    }

    /// Whether no environment is open for the fixture's file (every Store of it has closed).
    var isClosed: Bool {
        guard let canonical = try? EnvironmentRegistry.canonicalPath(path) else { return true }
        return !EnvironmentRegistry.shared.isOpen(canonical)
    }
}

/// Reaches under the Store to damage files on purpose.
enum RawAccess {
    /// The encoded row keys of a type, in order.
    static func keys<T: Object>(of type: T.Type, in store: Store) -> [Unchecked<RowKey>] {
        store.objects(type).keys().map(Unchecked.init)
    }

    /// The encoded row key of a managed object.
    static func key(of object: Object) -> Unchecked<RowKey> {
        Unchecked(object._key)
    }

    /// Rewrites the bytes of one row in a write of its own, and seals the result (`RowSeal`): damage
    /// that the row's checksum cannot reveal, as a bug writing a bad row would leave, for the checks
    /// of the row's structure behind it.
    static func rewriteRow<T: Object>(
        of type: T.Type, key: Unchecked<RowKey>, in store: Store, _ transform: (inout [UInt8]) -> Void
    ) throws {
        try rewriteStoredRow(of: type, key: key, in: store) { stored in
            var row = Array(stored.dropLast(RowSeal.size))
            transform(&row)
            stored = row + [0, 0, 0, 0]
            let key = key.value
            stored.withUnsafeMutableBytes { destination in
                row.withUnsafeBytes { row in
                    key.withBytes { RowSeal.write(row, key: $0, into: destination) }
                }
            }
        }
    }

    /// Rewrites the stored bytes of one row (the row and its seal) as they are, in a write of its own:
    /// damage as a flipped bit on disk leaves it.
    static func rewriteStoredRow<T: Object>(
        of type: T.Type, key: Unchecked<RowKey>, in store: Store, _ transform: (inout [UInt8]) -> Void
    ) throws {
        try store.write {
            let binding = try store.core.binding(for: type)
            guard let session = store.core.session, let stored = try session.get(binding.table, key: key.value) else {
                throw StoreError.deletedInAnotherThread
            }
            var bytes = Array(stored)
            transform(&bytes)
            try StoreError.mapping { () throws(LMDBError) in
                try key.value.withBytes { (key) throws(LMDBError) in
                    _ = try session.transaction!.put(binding.table, key: key, reserving: bytes.count) { destination in
                        bytes.withUnsafeBytes { destination.copyMemory(from: $0) }
                    }
                }
            }
        }
    }

    /// Deletes a row's bytes alone, leaving links and index entries to it behind.
    static func deleteRowBytes<T: Object>(of type: T.Type, key: Unchecked<RowKey>, in store: Store) throws {
        try store.write {
            let binding = try store.core.binding(for: type)
            _ = try store.core.session!.delete(binding.table, key: key.value)
        }
    }

    /// Replaces a value of the file's meta table (the store must be closed).
    static func rewriteMeta(path: String, key: String, value: [UInt8]) throws {
        let lease = try EnvironmentRegistry.shared.lease(
            path: try EnvironmentRegistry.canonicalPath(path),
            options: EnvironmentOptions(mapSize: Store.Configuration.defaultMaximumSize))
        let environment = lease.environment
        var transaction: WriteTransaction? = try WriteTransaction(environment)
        try environment.withTableRegistry { (_) throws(StoreError) in
            do throws(LMDBError) {
                guard let dbi = try transaction!.openTable(named: TableName.meta, flags: [], create: false) else {
                    throw LMDBError.notFound
                }
                let meta = Table(dbi: dbi, flags: [])
                _ = try value.withBytes { (value) throws(LMDBError) in
                    try Array(key.utf8).withBytes { (key) throws(LMDBError) in
                        try transaction!.put(meta, key: key, value: value)
                    }
                }
                try transaction.take()!.commit()
            } catch {
                throw StoreError(error)
            }
        }
    }
}
