import Foundation
import Observation
import StrataTestSupport
import XCTest

@testable import Strata

/// Observable embedded objects two levels deep, and a List of them.
final class WatchedGeo: EmbeddedObject, Observable {
    @Persisted var latitude: Double
}

final class WatchedAddress: EmbeddedObject, Observable {
    @Persisted var street: String
    @Persisted var geo: WatchedGeo?
}

final class WatchedPerson: Object, Observable {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var address: WatchedAddress?
    @Persisted var previous: List<WatchedAddress>
    @Persisted var places: Map<String, WatchedAddress?>
}

/// Observation through embedded objects against a plain reference: seeded rounds of another thread's
/// commits (renames, a nested embedded value, an embedded value, a List of embedded objects appended
/// to or changed in place, a Map's embedded object changed in place) while the main thread tracks,
/// per person, a read through the nested embedded objects, its name, the last element of its List
/// and one entry of its Map. The rule: a change to an embedded
/// object (or one it embeds) is a change of the owner's property that holds it, so a tracking that
/// read through that property is told, and no other.
final class ObservationEmbeddedModelTests: XCTestCase {
    private final class Counter: @unchecked Sendable {  // written and read on the main thread
        var calls = 0
    }

    private enum Operation: Sendable {
        case rename(Int)
        case moveGeo(Int)
        case renameStreet(Int)
        case appendPrevious(Int)
        case renamePreviousStreet(Int)
        case renamePlace(Int)
    }

    private static let people = 12

    func testTrackingThroughEmbeddedObjectsAgainstAReference() throws {
        for seed: UInt64 in [1, 2, 3] { try run(seed: seed, rounds: 60) }
    }

    private func run(seed: UInt64, rounds: Int) throws {
        var random = SplitMix64(state: seed)
        let fixture = Fixture([WatchedPerson.self, WatchedAddress.self, WatchedGeo.self])
        let store = try fixture.open()
        try store.write {
            for id in 0..<Self.people {
                let person = WatchedPerson()
                person.id = id
                person.address = WatchedAddress()
                person.address?.geo = WatchedGeo()
                person.places["home"] = WatchedAddress()
                person.places["work"] = WatchedAddress()
                try store.add(person)
            }
        }
        let people = (0..<Self.people).map { store.object(ofType: WatchedPerson.self, forPrimaryKey: $0)! }
        var stamp = 0
        for round in 0..<rounds {
            let throughAddress = people.map { _ in Counter() }
            let names = people.map { _ in Counter() }
            let throughPrevious = people.map { _ in Counter() }
            let throughPlaces = people.map { _ in Counter() }
            for (index, person) in people.enumerated() {
                withObservationTracking {
                    _ = person.address?.geo?.latitude
                } onChange: {
                    throughAddress[index].calls += 1
                }
                withObservationTracking {
                    _ = person.name
                } onChange: {
                    names[index].calls += 1
                }
                withObservationTracking {
                    _ = person.previous.last?.street
                } onChange: {
                    throughPrevious[index].calls += 1
                }
                withObservationTracking {
                    _ = person.places["home"]??.street
                } onChange: {
                    throughPlaces[index].calls += 1
                }
            }
            var operations: [Operation] = []
            for _ in 0..<Int.random(in: 1...3, using: &random) {
                let person = Int.random(in: 0..<Self.people, using: &random)
                switch Int.random(in: 0..<6, using: &random) {
                case 0: operations.append(.rename(person))
                case 1: operations.append(.moveGeo(person))
                case 2: operations.append(.renameStreet(person))
                case 3: operations.append(.appendPrevious(person))
                case 4: operations.append(.renamePlace(person))
                default: operations.append(.renamePreviousStreet(person))
                }
            }
            stamp += 1
            let value = stamp
            let planned = operations
            commitInBackground(fixture.configuration) { store in
                for operation in planned { try Self.apply(operation, value: value, in: store) }
            }
            try store.refresh()  // moves to the commit and delivers it now

            var address = Set<Int>()
            var name = Set<Int>()
            var previous = Set<Int>()
            var places = Set<Int>()
            for operation in operations {
                switch operation {
                case .rename(let person): name.insert(person)
                case .moveGeo(let person), .renameStreet(let person): address.insert(person)
                case .appendPrevious(let person): previous.insert(person)
                case .renamePlace(let person): places.insert(person)
                case .renamePreviousStreet(let person):
                    // Nothing to rename in an empty List (unless this commit appended first).
                    if !people[person].previous.isEmpty { previous.insert(person) }
                }
            }
            for index in people.indices {
                let context = "seed \(seed), round \(round), person \(index), \(operations)"
                XCTAssertEqual(throughAddress[index].calls, address.contains(index) ? 1 : 0, "address: \(context)")
                XCTAssertEqual(names[index].calls, name.contains(index) ? 1 : 0, "name: \(context)")
                XCTAssertEqual(throughPrevious[index].calls, previous.contains(index) ? 1 : 0, "List: \(context)")
                XCTAssertEqual(throughPlaces[index].calls, places.contains(index) ? 1 : 0, "Map: \(context)")
            }
        }
    }

    private static func apply(_ operation: Operation, value: Int, in store: Store) throws {
        func person(_ id: Int) -> WatchedPerson { store.object(ofType: WatchedPerson.self, forPrimaryKey: id)! }
        switch operation {
        case .rename(let id):
            person(id).name = "name \(value)"
        case .moveGeo(let id):
            person(id).address!.geo!.latitude = Double(value)
        case .renameStreet(let id):
            person(id).address!.street = "street \(value)"
        case .appendPrevious(let id):
            let address = WatchedAddress()
            address.street = "old \(value)"
            person(id).previous.append(address)
        case .renamePlace(let id):
            // Either entry: a change to any embedded object of the Map is the Map's.
            let key = value.isMultiple(of: 2) ? "home" : "work"
            person(id).places[key]!!.street = "moved \(value)"
        case .renamePreviousStreet(let id):
            let previous = person(id).previous
            if let first = previous.first { first.street = "renamed \(value) \(previous.count)" }
        }
    }
}
