import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// A label with an indexed optional string and the same values unindexed.
final class Label: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted(indexed: true) var tag: String?
    @Persisted var plain: String?

    convenience init(id: Int, _ value: String?) {
        self.init()
        self.id = id
        tag = value
        plain = value
    }
}

/// Comparisons of strings with nil, as Realm orders them: nil sorts before every string, so every
/// string is greater than nil (`> nil` matches the non-nil ones, `>= nil` all), and nil is less than
/// any string (`< "b"` matches nil too). With an index or without, the same objects.
@Suite(.fixtureChecks) struct StringNilOrderTests {
    @Test func nilSortsBeforeEveryString() throws {
        let fixture = Fixture([Label.self])
        let store = try fixture.open()
        try store.write {
            try store.add(contentsOf: [Label(id: 1, nil), Label(id: 2, "a"), Label(id: 3, ""), Label(id: 4, "c")])
        }
        let labels = store.objects(Label.self)
        func ids(_ query: (Query<Label>) -> Query<Bool>) -> [Int] { labels.where(query).map(\.id) }
        for indexed in [true, false] {
            let field: (Query<Label>) -> Query<String?> = { indexed ? $0.tag : $0.plain }
            #expect(ids { field($0) > nil } == [2, 3, 4], "indexed \(indexed)")
            #expect(ids { field($0) >= nil } == [1, 2, 3, 4])
            #expect(ids { field($0) < nil } == [])
            #expect(ids { field($0) <= nil } == [1])
            #expect(ids { field($0) < "b" } == [1, 2, 3])
            #expect(ids { field($0) <= "" } == [1, 3])
            #expect(ids { field($0) > "" } == [2, 4])
            #expect(ids { field($0) >= "a" } == [2, 4])
        }
        #expect(labels.sorted(by: \.tag).map(\.id) == [1, 3, 2, 4])
    }
}
