import Foundation
import StrataTestSupport
import Testing

@testable import Strata

final class IntKeyed: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var value: Int
}

final class Int32Keyed: Object {
    @Persisted(primaryKey: true) var id: Int32
    @Persisted var value: Int
}

@Suite("Lookups by primary key", .fixtureChecks)
struct PrimaryKeyLookupTests {
    @Test("an Int finds what the same value of another integer type finds, and only what was added")
    func intLookupsMatchConvertedOnes() throws {
        var random = SplitMix64(state: 56)
        let fixture = Fixture([IntKeyed.self, Int32Keyed.self])
        let store = try fixture.open()
        let extremes = [Int.min, Int.min + 1, -1, 0, 1, Int(Int32.min), Int(Int32.max), Int.max - 1, Int.max]
        let stored = Set(extremes + (0..<300).map { _ in Int.random(in: .min ... .max, using: &random) })
        let narrow = Set(stored.compactMap(Int32.init(exactly:)))
        try store.write {
            for id in stored {
                let object = IntKeyed()
                object.id = id
                object.value = id &* 3
                try store.add(object)
            }
            for id in narrow {
                let object = Int32Keyed()
                object.id = id
                object.value = Int(id) &* 5
                try store.add(object)
            }
        }
        let binding = try store.core.binding(for: IntKeyed.self)
        let absent = (0..<300).map { _ in Int.random(in: .min ... .max, using: &random) }.filter {
            !stored.contains($0)
        }
        for id in stored.sorted() + absent {
            #expect(
                try store.core.rowKey(forPrimaryKey: id, binding: binding)
                    == store.core.rowKey(forPrimaryKey: Int64(id), binding: binding))
            #expect(
                store.object(ofType: IntKeyed.self, forPrimaryKey: id)?.value == (stored.contains(id) ? id &* 3 : nil))
            // An Int for an Int32 key: converted when it fits, nil when it does not.
            let expected = Int32(exactly: id).flatMap { narrow.contains($0) ? Int($0) &* 5 : nil }
            #expect(store.object(ofType: Int32Keyed.self, forPrimaryKey: id)?.value == expected)
        }
    }
}
