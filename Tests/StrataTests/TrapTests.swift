import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Non-throwing APIs trap on misuse, as Realm's do, with fixed messages that start with "Strata:".
/// Each body runs in a child process; the parent checks the exit and the message.
/// What a child process printed on stderr.
func standardError(of result: ExitTest.Result?) -> String {
    String(decoding: result?.standardErrorContent ?? [], as: UTF8.self)
}

@Suite(.fixtureChecks) struct TrapTests {
    static func storeForChild(_ path: String) -> Store {
        let configuration = Store.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Person.self])
        do {
            let store = try Store(configuration: configuration)
            try store.write { try store.add(Person(id: 1, name: "Ann")) }
            return store
        } catch {
            fatalError("setting up the child failed: \(error)")
        }
    }

    static func deleteThenRead(_ path: String) {
        let store = storeForChild(path)
        let person = store.objects(Person.self)[0]
        try? store.write { try store.delete(person) }
        _ = person.name
    }

    /// Synchronous: a write must not be in an async context (the exit test's body is one).
    static func setAFrozenObjectsName(_ path: String) {
        let store = storeForChild(path)
        let frozen = try? store.objects(Person.self)[0].freeze()
        try? store.write { frozen?.name = "Bea" }
    }

    static func changePrimaryKey(_ path: String) {
        let store = storeForChild(path)
        try? store.write { store.objects(Person.self)[0].id = 2 }
    }

    static func queryAMemberOfAStoredValue(_ path: String) {
        let store = storeForChild(path)
        _ = store.objects(Person.self).where { $0.name.count == 1 }.count
    }

    @Test func aQueryPastAStoredValueNamesTheKeyPath() async throws {
        let fixture = Fixture([Person.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            TrapTests.queryAMemberOfAStoredValue(path)
        }
        let output = standardError(of: result)
        #expect(output.contains("Strata: Person.name then \\String."), "\(output)")
        #expect(output.contains("is not a @Persisted property"))
        #expect(output.contains("TrapTests.swift"))  // where the query was written
        #expect(!output.contains("cannot be reflected"))
    }

    @Test func readingADeletedObjectTraps() async throws {
        let fixture = Fixture([Person.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            TrapTests.deleteThenRead(path)
        }
        let output = standardError(of: result)
        #expect(output.contains(TrapMessage.invalidated))
    }

    @Test func readingFromTheWrongThreadTraps() async throws {
        let fixture = Fixture([Person.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            let store = TrapTests.storeForChild(path)
            let person = Unchecked(store.objects(Person.self)[0])
            _ = onAnotherThread { person.value.name }
        }
        let output = standardError(of: result)
        #expect(output.contains(TrapMessage.wrongThread))
    }

    @Test func readsOfATypeOutsideTheSchemaOrOffTheThreadTrapNamingTheCause() async throws {
        let paths = (0..<3).map { _ in Fixture([Person.self]) }
        let (first, second, third) = (paths[0].path, paths[1].path, paths[2].path)
        let outsideSchema = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = first as String] in
            _ = TrapTests.storeForChild(path).objects(Town.self)
        }
        #expect(standardError(of: outsideSchema).contains("Strata: Town is not in this Store's schema"))
        let byKeyOutsideSchema = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = second as String] in
            _ = TrapTests.storeForChild(path).object(ofType: Town.self, forPrimaryKey: "Oslo")
        }
        #expect(standardError(of: byKeyOutsideSchema).contains("Strata: Town is not in this Store's schema"))
        let offThread = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = third as String] in
            let store = Unchecked(TrapTests.storeForChild(path))
            _ = onAnotherThread { store.value.object(ofType: Person.self, forPrimaryKey: 1) != nil }
        }
        #expect(standardError(of: offThread).contains(TrapMessage.wrongThread))
        _ = paths  // the directories live until the children are done
    }

    @Test func settingAPropertyOutsideAWriteTraps() async throws {
        let fixture = Fixture([Person.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            let store = TrapTests.storeForChild(path)
            store.objects(Person.self)[0].name = "Bea"
        }
        let output = standardError(of: result)
        #expect(output.contains(TrapMessage.notInWriteTransaction))
    }

    @Test func settingAPropertyOfAFrozenObjectTraps() async throws {
        let fixture = Fixture([Person.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            TrapTests.setAFrozenObjectsName(path)
        }
        let output = standardError(of: result)
        #expect(output.contains(TrapMessage.frozen))
    }

    @Test func changingAManagedListOutsideAWriteTraps() async throws {
        let fixture = Fixture([Person.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            let store = TrapTests.storeForChild(path)
            store.objects(Person.self)[0].dogs.append(Dog(name: "Rex"))
        }
        let output = standardError(of: result)
        #expect(output.contains(TrapMessage.notInWriteTransaction))
    }

    @Test func changingThePrimaryKeyTraps() async throws {
        let fixture = Fixture([Person.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            TrapTests.changePrimaryKey(path)
        }
        let output = standardError(of: result)
        #expect(output.contains(TrapMessage.primaryKeyChange))
    }

    @Test func readingADamagedRowTrapsNamingTypeKeyAndDamage() async throws {
        let fixture = Fixture([Person.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            let store = TrapTests.storeForChild(path)
            let key = RawAccess.keys(of: Person.self, in: store)[0]
            try? RawAccess.rewriteRow(of: Person.self, key: key, in: store) { bytes in
                let a = bytes.firstIndex(of: UInt8(ascii: "A"))!
                bytes[a] = 0xFF  // not UTF-8
            }
            _ = store.objects(Person.self)[0].name
        }
        let output = standardError(of: result)
        #expect(output.contains("\(TrapMessage.corrupted): Person[1].name"))
        #expect(output.contains("not valid UTF-8"))
    }

    @Test func readingADamagedColumnAsValuesTrapsNamingTypeKeyAndDamage() async throws {
        let fixture = Fixture([Person.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            let store = TrapTests.storeForChild(path)
            let key = RawAccess.keys(of: Person.self, in: store)[0]
            try? RawAccess.rewriteRow(of: Person.self, key: key, in: store) { bytes in
                let a = bytes.firstIndex(of: UInt8(ascii: "A"))!
                bytes[a] = 0xFF  // not UTF-8
            }
            _ = Array(store.objects(Person.self).values(of: \.name))
        }
        let output = standardError(of: result)
        #expect(output.contains("\(TrapMessage.corrupted): Person[1].name"))
        #expect(output.contains("not valid UTF-8"))
    }

    @Test func valuesIteratedOnAnotherThreadTrap() async throws {
        let fixture = Fixture([Person.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            let iterator = Unchecked(
                TrapTests.storeForChild(path).objects(Person.self).values(of: \.age).makeIterator())
            _ = onAnotherThread {
                var moved = iterator.value
                return moved.next()
            }
        }
        let output = standardError(of: result)
        #expect(output.contains(TrapMessage.wrongThread))
    }

    @Test func objectsOfAStoreOnAnotherThreadTrapInResults() async throws {
        let fixture = Fixture([Person.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            let results = Unchecked(TrapTests.storeForChild(path).objects(Person.self))
            _ = onAnotherThread { results.value.count }
        }
        let output = standardError(of: result)
        #expect(output.contains(TrapMessage.wrongThread))
    }
}

@Suite(.fixtureChecks) struct StaleReaderTests {
    /// A process killed while it held a snapshot leaves its reader slot in the lock file while other
    /// processes keep the file open; the reader check clears it (run at open and when the table is full).
    @Test func aKilledProcessesReaderSlotIsCleared() async throws {
        let fixture = Fixture([Person.self])
        let store = try fixture.open()  // keeps the file open in this process
        let path = fixture.path
        await #expect(processExitsWith: .failure) { [path = path as String] in
            let store = TrapTests.storeForChild(path)
            _ = store.objects(Person.self).count  // holds a snapshot
            _exit(1)  // dies without closing anything
        }
        // The child died holding its snapshot, not before taking it (an exit test passes either way).
        let environment = store.core.environment
        #expect(environment.readers().contains { $0.processID != getpid() }, "\(environment.readers())")
        // A new Store finds the reader table full (injected at its snapshot's begin, after the schema
        // read): the check clears the dead child's slot, and the retry succeeds.
        let configuration = fixture.configuration
        let opened = await onAnotherThread { () -> Bool in
            LMDBFaults.inject(.readersFull, into: .beginTransaction, times: 1, after: 1)
            defer { LMDBFaults.clear() }
            return (try? Store(configuration: configuration).objects(Person.self).count) == 1
        }
        #expect(opened, "\(environment.readers())")
        #expect(try environment.clearStaleReaders() == 0)  // already cleared
    }

    @Test func aFullReaderTableWithoutDeadReadersIsATypedError() throws {
        let fixture = Fixture([Person.self])
        let store = try fixture.open()
        let configuration = fixture.configuration
        let failure = onAnotherThread { () -> StoreError? in
            LMDBFaults.inject(.readersFull, into: .beginTransaction, times: 1, after: 1)
            defer { LMDBFaults.clear() }
            do throws(StoreError) {
                _ = try Store(configuration: configuration)
                return nil
            } catch {
                return error
            }
        }
        #expect(failure == StoreError.storage(.readersFull))
        _ = store
    }
}
