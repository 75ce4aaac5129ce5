import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Realm's MapTests and PrimitiveMapTests (RealmSwift/Tests/MapTests.swift, PrimitiveMapTests.swift),
/// re-expressed: each test runs on an unmanaged map (Realm's MapStandaloneTests) and a managed one
/// (MapNewlyAddedTests), then what a stored Map adds (queries, notifications, links, damage).
@Suite("Map", .fixtureChecks)
struct MapTests {
    @Test("Realm testPrimitive: set, read, absent keys, min/max/sum/average")
    func primitive() throws {
        try onUnmanagedAndManagedContact { contact, _ in
            contact.scores["key"] = 5
            #expect(contact.scores["key"] == 5)
            #expect(contact.scores["doesntExist"] == nil)
            contact.scores["keyB"] = 6
            contact.scores["keyC"] = 7
            contact.scores["keyD"] = 8
            contact.amounts["a"] = "1.5"
            contact.amounts["b"] = "2.25"
            #expect(contact.amounts.max() == "2.25")
            #expect(contact.amounts.min() == "1.5")
            #expect(contact.amounts.sum() == "3.75")
            #expect(contact.amounts.average() == 1.875)
            contact.phones["key"] = "str"
            #expect(contact.phones["key"] == "str")
            #expect(contact.scores.count == 4)
            #expect(contact.scores.keys == ["key", "keyB", "keyC", "keyD"])
        }
    }

    @Test("Realm testPrimitiveIterationAcrossNil: an optional value may be nil, and it is an entry")
    func optionalValues() throws {
        try onUnmanagedAndManagedContact { contact, _ in
            #expect(!contact.scores.contains { $0.value == nil })
            contact.scores["none"] = .some(nil)
            contact.scores["one"] = 1
            #expect(contact.scores.count == 2)
            #expect(contact.scores.contains(key: "none"))
            #expect(contact.scores["none"] == .some(nil))
            #expect(contact.scores["missing"] == nil)
            contact.scores["none"] = nil  // nil removes, as for a dictionary
            #expect(contact.scores.keys == ["one"])
        }
    }

    @Test("Realm testInvalidated: a map whose owner is deleted is invalidated")
    func invalidated() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        let contact = Contact(name: "a")
        try store.write { try store.add(contact) }
        let phones = contact.phones
        #expect(!phones.isInvalidated)
        #expect(phones.isManaged)
        try store.write { try store.delete(contact) }
        #expect(phones.isInvalidated)
    }

    @Test("Realm testFastEnumerationWithMutation: iterating a snapshot while changing the map")
    func enumerationWithMutation() throws {
        try onUnmanagedAndManagedContact { contact, _ in
            for index in 0...5 { contact.phones["key\(index)"] = "1" }
            var seen = ""
            for (key, value) in contact.phones {
                seen += value
                contact.phones[key] = "2"
            }
            #expect(seen == "111111")
            #expect(contact.phones.values == Array(repeating: "2", count: 6))
        }
    }

    @Test("Realm testAppendObject, testInsert, testPopulateEmptyMap: links to new and stored objects")
    func links() throws {
        try onUnmanagedAndManagedContact { contact, store in
            let stored = Dog(name: "stored")
            if let store { try store.add(stored) }
            contact.pets["a"] = Dog(name: "new")
            contact.pets["b"] = stored
            #expect(contact.pets.count == 2)
            #expect(contact.pets["a"]??.name == "new")
            #expect(contact.pets["b"]??.name == "stored")
            if let store {
                #expect(store.objects(Dog.self).count == 2)  // the unmanaged Dog was added
                #expect(contact.pets["a"]??.isManaged == true)
            }
        }
    }

    @Test("Realm testRemove, testRemoveAll, and removeValue(for:)")
    func remove() throws {
        try onUnmanagedAndManagedContact { contact, _ in
            contact.phones["a"] = "1"
            contact.phones.removeObject(for: "a")
            #expect(contact.phones.isEmpty)
            contact.phones["a"] = "1"
            contact.phones["a"] = nil
            #expect(contact.phones["a"] == nil)
            for index in 0..<5 { contact.phones[String(index)] = "x" }
            contact.phones.removeValue(for: "0")
            #expect(contact.phones.count == 4)
            contact.phones.removeAll()
            #expect(contact.phones.count == 0)
        }
    }

    @Test("Realm testChangesArePersisted: another Store (another thread) reads what was committed")
    func changesArePersisted() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        let contact = Contact(name: "a")
        try store.write {
            try store.add(contact)
            contact.phones["home"] = "1"
            contact.phones["work"] = "2"
            contact.pets["rex"] = Dog(name: "Rex")
        }
        let seen = onAnotherThread { () -> [String] in
            guard let other = try? fixture.open(), let read = other.objects(Contact.self).first else { return [] }
            return read.phones.map { "\($0.key)=\($0.value)" } + [read.pets["rex"]??.name ?? "none"]
        }
        #expect(seen == ["home=1", "work=2", "Rex"])
    }

    @Test("merge, updateValue and asKeyValueSequence")
    func mergeAndUpdate() throws {
        try onUnmanagedAndManagedContact { contact, _ in
            contact.phones["a"] = "1"
            #expect(contact.phones.updateValue("2", forKey: "a") == "1")
            #expect(contact.phones.updateValue("3", forKey: "b") == nil)
            contact.phones.merge([(key: "a", value: "x"), (key: "c", value: "y")]) { old, new in old + new }
            #expect(contact.phones.asKeyValueSequence().map { "\($0.key)\($0.value)" } == ["a2x", "b3", "cy"])
        }
    }

    @Test("keys with a '.', a leading '$' or over 511 bytes are refused as Realm refuses them, nothing written")
    func invalidKeys() throws {
        try onUnmanagedAndManagedContact { contact, _ in
            for bad in ["a.b", "$a", String(repeating: "k", count: 512)] {
                #expect { try contact.phones.setValue("1", forKey: bad) } throws: { isCase($0, .invalidArgument("")) }
            }
            try contact.phones.setValue("1", forKey: "fine$")
            #expect(contact.phones.keys == ["fine$"])
        }
    }

    @Test("a deleted link target leaves its key with nil, as in Realm")
    func deletedTarget() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        let contact = Contact(name: "a")
        let rex = Dog(name: "Rex")
        try store.write {
            try store.add(contact)
            contact.pets["rex"] = rex
            contact.pets["other"] = Dog(name: "Other")
        }
        try store.write { try store.delete(rex) }
        #expect(contact.pets.keys == ["other", "rex"])
        #expect(contact.pets["rex"] == .some(nil))
        #expect(contact.pets["other"]??.name == "Other")
        try store.verify()
    }

    @Test("Realm testAllKeysQuery, testAllValuesQuery: map[key], keys.contains, values.contains, count")
    func queries() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        try store.write {
            for (index, phones) in [["aKey": "1"], ["aKey2": "2"], ["aKey3": "3"], ["aKey": "4", "aKey4": "1"]]
                .enumerated()
            {
                let contact = Contact(name: "c\(index)")
                for (key, value) in phones { contact.phones[key] = value }
                contact.scores["n"] = index == 0 ? .some(nil) : index
                try store.add(contact)
            }
        }
        let all = store.objects(Contact.self)
        func names(_ query: (Query<Contact>) -> Query<Bool>) -> [String] { all.where(query).map(\.name).sorted() }
        #expect(names { $0.phones.keys.contains("aKey") } == ["c0", "c3"])
        #expect(names { !$0.phones.keys.contains("aKey") } == ["c1", "c2"])
        #expect(names { $0.phones.values.contains("1") } == ["c0", "c3"])
        #expect(names { $0.phones["aKey"] == "4" } == ["c3"])
        #expect(names { $0.phones["aKey"] == nil } == ["c1", "c2"])
        #expect(names { $0.phones["aKey"] >= "1" } == ["c0", "c3"])
        #expect(names { $0.phones.count > 1 } == ["c3"])
        #expect(names { $0.scores["n"] == nil } == ["c0"])
        #expect(names { $0.scores["n"] > 1 } == ["c2", "c3"])
        #expect(names { $0.scores.values.contains(2) } == ["c2"])
    }

    @Test("observe: keys deleted, inserted and modified per write; the owner's deletion removes every key")
    func notifications() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        let contact = Contact(name: "a")
        try store.write {
            try store.add(contact)
            contact.phones["keep"] = "1"
            contact.phones["change"] = "1"
            contact.phones["drop"] = "1"
        }
        var changes: [String] = []
        let token = try contact.phones.observe { change in
            switch change {
            case .initial(let map): changes.append("initial \(map.count)")
            case .update(_, let deletions, let insertions, let modifications):
                changes.append("-\(deletions) +\(insertions) ~\(modifications)")
            case .error(let error): changes.append("error \(error)")
            }
        }
        try store.write {
            contact.phones["change"] = "2"
            contact.phones["drop"] = nil
            contact.phones["new"] = "1"
        }
        try store.write { contact.name = "b" }  // another column: nothing for the map
        try store.write { try store.delete(contact) }
        try store.refresh()
        #expect(
            changes == [
                "initial 3", "-[\"drop\"] +[\"new\"] ~[\"change\"]", "-[\"change\", \"keep\", \"new\"] +[] ~[]",
            ])
        token.invalidate()
        #expect(throws: StoreError.notManaged) { try Contact(name: "x").phones.observe { _ in } }
    }

    @Test("damaged Map bytes are corrupted, never a trap: odd parts, null or unordered keys, bad values")
    func damagedBytes() {
        let list = storedList
        let damaged: [[UInt8]] = [
            list([Array("a".utf8)]), list([nil, Array("1".utf8)]), list([Array("b".utf8), [1], Array("a".utf8), [2]]),
            list([Array("a".utf8), [1], Array("a".utf8), [2]]), list([[0xFF, 0xFE], Array("1".utf8)]),
            list([Array("a".utf8), nil]), list([Array("a".utf8), [0xC3]]), [1, 0, 0],
        ]
        for bytes in damaged {
            let failed = bytes.withUnsafeBytes { raw in
                (try? Map<String, String>._strataDecodeColumn(raw, in: _DecodeContext(owner: nil, column: 0))) == nil
            }
            #expect(failed, "\(bytes)")
        }
    }

    @Test("observe(keyPaths: [\"phones.home\"]) reports a change of that key only; pets.name goes through the links")
    func keyPathObservation() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        let contact = Contact(name: "a")
        try store.write {
            try store.add(contact)
            contact.phones["home"] = "1"
            contact.phones["work"] = "1"
            contact.pets["rex"] = Dog(name: "Rex")
        }
        var changes: [String] = []
        let token = try contact.observe(keyPaths: ["phones.home", "pets.name"]) { change in
            switch change {
            case .change(_, let properties): changes.append(properties.map(\.name).joined(separator: ","))
            case .deleted: changes.append("deleted")
            case .error(let error): changes.append("error \(error)")
            }
        }
        try store.write { contact.phones["work"] = "2" }  // another key: nothing
        try store.write { contact.phones["home"] = "2" }
        try store.write { contact.phones["home"] = nil }  // removed: a change of the key
        try store.write { contact.phones["home"] = "3" }  // added again
        try store.write { contact.pets["rex"]??.owner = Person(id: 1) }  // another property of the pet: nothing
        try store.write { contact.pets["rex"]??.name = "Max" }
        try store.write { contact.name = "b" }
        try store.refresh()
        #expect(changes == ["phones", "phones", "phones", "pets"], "\(changes)")
        token.invalidate()
        // A key path past a value Map's key, and a key breaking the key rule, are refused.
        #expect { try contact.observe(keyPaths: ["phones.home.x"]) { _ in } } throws: {
            isCase($0, .invalidArgument(""))
        }
        #expect { try contact.observe(keyPaths: ["phones.$x"]) { _ in } } throws: { isCase($0, .invalidArgument("")) }
        #expect { try contact.observe(keyPaths: ["pets.rex"]) { _ in } } throws: { isCase($0, .invalidArgument("")) }
    }

    @Test("observe of a Map and a set of objects: a change of an object is a modification (keyPaths narrow it)")
    func objectCollectionNotifications() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        let contact = Contact(name: "a")
        let friend = Contact(name: "friend")
        try store.write {
            contact.pets["rex"] = Dog(name: "Rex")
            contact.pets["max"] = Dog(name: "Max")
            contact.friends.insert(friend)
            try store.add(contact)
        }
        var all: [String] = []
        var named: [String] = []
        var friends: [String] = []
        let tokens = [
            try contact.pets.observe { change in
                if case .update(_, let deletions, let insertions, let modifications) = change {
                    all.append("-\(deletions) +\(insertions) ~\(modifications)")
                }
            },
            try contact.pets.observe(keyPaths: ["owner"]) { change in
                if case .update(_, _, _, let modifications) = change { named.append("~\(modifications)") }
            },
            try contact.friends.observe(keyPaths: ["name"]) { change in
                if case .update(_, _, _, let modifications) = change { friends.append("~\(modifications)") }
            },
        ]
        try store.write { contact.pets["rex"]??.name = "Rexy" }
        try store.write { contact.pets["max"]??.owner = Person(id: 1) }
        try store.write { friend.name = "pal" }
        try store.write { friend.tags.insert("x") }  // not a name: nothing for the key-path observer
        try store.refresh()
        #expect(all == ["-[] +[] ~[\"rex\"]", "-[] +[] ~[\"max\"]"], "\(all)")
        #expect(named == ["~[\"max\"]"], "\(named)")
        #expect(friends == ["~[0]"], "\(friends)")
        for token in tokens { token.invalidate() }
        #expect { try contact.phones.observe(keyPaths: ["name"]) { _ in } } throws: { isCase($0, .invalidArgument("")) }
        #expect { try contact.pets.observe(keyPaths: ["nothing"]) { _ in } } throws: {
            isCase($0, .invalidArgument(""))
        }
    }

    @Test("observe(on: queue): the map is read on a Store of that queue, and updates arrive there")
    func observeOnQueue() throws {
        let fixture = Fixture([Contact.self])
        let store = try fixture.open()
        let contact = Contact(name: "a")
        try store.write { try store.add(contact) }
        let queue = DispatchQueue(label: "map-observer")
        let seen = Locked<[String]>([])
        let token = try contact.phones.observe(on: queue) { change in
            dispatchPrecondition(condition: .onQueue(queue))
            switch change {
            case .initial(let map): seen.withLock { $0.append("initial \(map.count)") }
            case .update(let map, _, let insertions, _):
                seen.withLock { $0.append("+\(insertions) \(map["home"] ?? "nil")") }
            case .error(let error): seen.withLock { $0.append("error \(error)") }
            }
        }
        defer { token.invalidate() }
        /// Waits on the condition (never a fixed time): up to a minute, sleeping a millisecond between looks.
        func waitFor(_ count: Int) -> Bool {
            let deadline = Date().addingTimeInterval(60)
            while seen.withLock({ $0.count }) < count {
                guard Date() < deadline else { return false }
                Thread.sleep(forTimeInterval: 0.001)
            }
            return true
        }
        #expect(waitFor(1))
        try store.write { contact.phones["home"] = "1" }
        #expect(waitFor(2))
        // A concurrent queue: opening the Store there fails, which arrives as `.error`.
        let refused = Locked<[String]>([])
        let concurrent = DispatchQueue(label: "strata.tests.map-concurrent", attributes: .concurrent)
        let refusedToken = try contact.phones.observe(on: concurrent) { change in
            if case .error(.invalidArgument(let message)) = change { refused.withLock { $0.append(message) } }
        }
        defer { refusedToken.invalidate() }
        let deadline = Date().addingTimeInterval(60)
        while refused.withLock({ $0.isEmpty }), Date() < deadline { Thread.sleep(forTimeInterval: 0.001) }
        #expect(refused.withLock { $0.first?.contains("concurrent queue") } == true)
        #expect(seen.withLock { $0 } == ["initial 0", "+[\"home\"] 1"])
    }

    @Test("a key looked up in place: found, absent, null, and damage before the key is a typed error")
    func keyLookUpInPlace() throws {
        func lookUp(_ key: String, _ bytes: [UInt8]) throws -> [UInt8]?? {
            try bytes.withUnsafeBytes { raw in
                try MapFormat.value(forKey: Array(key.utf8), in: raw).map { $0.map { Array($0) } }
            }
        }
        let list = storedList
        let stored = list([Array("a".utf8), [1], Array("b".utf8), nil, Array("d".utf8), [4, 4]])
        #expect(try lookUp("a", stored) == .some([1]))
        #expect(try lookUp("b", stored) == .some(nil))
        #expect(try lookUp("d", stored) == .some([4, 4]))
        #expect(try lookUp("c", stored) == nil)
        #expect(try lookUp("e", stored) == nil)
        #expect(try lookUp("", stored) == nil)
        // Damage on the way to the key: cut off, a length past the end, a null key, an odd count.
        for damaged in [
            Array(stored.dropLast(3)), Array(stored.prefix(6)), list([nil, [1]]), list([Array("a".utf8)]),
            [2, 0, 0, 0, 200, 0, 0, 0, 97], [2, 0, 0, 0, 1, 0, 0, 0, 97, 9, 0, 0, 0, 1],
        ] {
            #expect(throws: RowDamage.self, "\(damaged)") { try lookUp("d", damaged) }
        }
    }
}
