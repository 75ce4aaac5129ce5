import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// `List` is a `RangeReplaceableCollection` with the same meaning managed and unmanaged: every
/// operation below gives the same elements as on a Swift Array.
@Suite(.fixtureChecks) struct ListCollectionTests {
    typealias Operation = (name: String, apply: (List<Int>) -> Void, expected: ([Int]) -> [Int])

    static var operations: [Operation] {
        [
            ("append(contentsOf:)", { $0.append(contentsOf: [7, 8]) }, { $0 + [7, 8] }),
            (
                "+=",
                { list in
                    var reference = list  // the same List: += changes it in place
                    reference += [9]
                }, { $0 + [9] }
            ),
            (
                "insert(contentsOf:at:)", { $0.insert(contentsOf: [20, 21], at: 1) },
                {
                    var a = $0
                    a.insert(contentsOf: [20, 21], at: 1)
                    return a
                }
            ),
            ("removeFirst()", { _ = $0.removeFirst() }, { Array($0.dropFirst()) }),
            ("removeFirst(2)", { $0.removeFirst(2) }, { Array($0.dropFirst(2)) }),
            ("removeLast()", { _ = $0.removeLast() }, { Array($0.dropLast()) }),
            ("removeLast(2)", { $0.removeLast(2) }, { Array($0.dropLast(2)) }),
            ("popLast()", { _ = $0.popLast() }, { Array($0.dropLast()) }),
            (
                "replaceSubrange", { $0.replaceSubrange(1..<3, with: [30, 31, 32]) },
                {
                    var a = $0
                    a.replaceSubrange(1..<3, with: [30, 31, 32])
                    return a
                }
            ),
            ("removeSubrange", { $0.removeSubrange(0..<2) }, { Array($0.dropFirst(2)) }),
            ("removeAll(where:)", { $0.removeAll { $0 % 2 == 0 } }, { $0.filter { $0 % 2 != 0 } }),
            (
                "swapAt", { $0.swapAt(0, 2) },
                {
                    var a = $0
                    a.swapAt(0, 2)
                    return a
                }
            ),
            ("reverse()", { $0.reverse() }, { $0.reversed() }),
            ("sort()", { $0.sort() }, { $0.sorted() }),
            ("sort(by:)", { $0.sort(by: >) }, { $0.sorted(by: >) }),
            (
                "remove(at:)", { _ = $0.remove(at: 1) },
                {
                    var a = $0
                    a.remove(at: 1)
                    return a
                }
            ),
            (
                "insert(_:at:)", { $0.insert(40, at: 2) },
                {
                    var a = $0
                    a.insert(40, at: 2)
                    return a
                }
            ),
            (
                "move(from:to:)", { $0.move(from: 0, to: 3) },
                {
                    var a = $0
                    let e = a.remove(at: 0)
                    a.insert(e, at: 3)
                    return a
                }
            ),
            ("removeAll()", { $0.removeAll() }, { _ in [] }),
            (
                "subscript set", { $0[1] = 50 },
                {
                    var a = $0
                    a[1] = 50
                    return a
                }
            ),
        ]
    }

    static let start = [5, 3, 4, 1, 2, 6]

    @Test func everyOperationMatchesAnArrayUnmanagedAndManaged() throws {
        let fixture = Fixture([AllTypes.self, Person.self])
        let store = try fixture.open()
        let owner = AllTypes()
        owner.key = "owner"
        try store.write { try store.add(owner) }
        for operation in Self.operations {
            let expected = operation.expected(Self.start)
            let unmanaged = List(Self.start)
            operation.apply(unmanaged)
            #expect(Array(unmanaged) == expected, "unmanaged \(operation.name)")
            try store.write {
                owner.ints.removeAll()
                owner.ints.append(contentsOf: Self.start)
                operation.apply(owner.ints)
            }
            #expect(Array(owner.ints) == expected, "managed \(operation.name)")
            #expect(Array(store.objects(AllTypes.self).first!.ints) == expected, "stored \(operation.name)")
        }
    }

    @Test func rangeReplacementOnAListOfObjectsAddsAndKeepsThem() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        let ann = Person(id: 1, name: "Ann")
        try store.write { try store.add(ann) }
        try store.write {
            ann.dogs.replaceSubrange(0..<0, with: [Dog(name: "Rex"), Dog(name: "Fido"), Dog(name: "Spot")])
            ann.dogs.removeFirst()
            ann.dogs.insert(contentsOf: [Dog(name: "Max")], at: 1)
        }
        #expect(ann.dogs.map(\.name) == ["Fido", "Max", "Spot"])
        #expect(store.objects(Dog.self).count == 4)  // removing from a List keeps the object
        #expect(store.objects(Dog.self).where { $0.name == "Max" }.first?.walkers.map(\.id) == [1])
    }
}
