import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// `@Persisted(owning: true)`: cascading deletes, opt-in per property (realm-swift #1186, open since
/// 2014: orphans grew an app's file from 200 MB to 8 GB).
@Suite("Owning links", .fixtureChecks)
struct OwningLinkTests {
    private func texts(_ store: Store) -> [String] {
        store.objects(OrderLine.self).map(\.text).sorted()
    }

    @Test("deleting the owner deletes what it owns, through Lists, links, sets and maps, recursively")
    func cascade() throws {
        let fixture = Fixture([Order.self])
        let store = try fixture.open()
        let order = Order(id: 1)
        try store.write {
            let line = OrderLine("line")
            line.parts.insert(OrderLine("part"))
            line.byKind["extra"] = OrderLine("extra")
            order.lines.append(line)
            order.note = OrderLine("note")
            try store.add(order)
            try store.add(OrderLine("standalone"))
        }
        #expect(texts(store) == ["extra", "line", "note", "part", "standalone"])
        try store.write { try store.delete(order) }
        #expect(texts(store) == ["standalone"])
        try store.verify()
    }

    @Test("a target another owner holds stays; a plain link does not keep it alive")
    func sharedTargets() throws {
        let fixture = Fixture([Order.self])
        let store = try fixture.open()
        let first = Order(id: 1)
        let second = Order(id: 2)
        let shared = OrderLine("shared")
        let featured = OrderLine("featured")
        try store.write {
            first.lines.append(objectsIn: [shared, featured])
            second.lines.append(shared)
            second.featured = featured
            try store.add(first)
            try store.add(second)
        }
        try store.write { try store.delete(first) }
        #expect(texts(store) == ["shared"])
        #expect(second.featured == nil)
        #expect(second.lines.map(\.text) == ["shared"])
        try store.write { try store.delete(store.objects(Order.self).where { $0.id == 2 }) }
        #expect(texts(store).isEmpty)
    }

    @Test("cycles of owning links end")
    func cycles() throws {
        let fixture = Fixture([Order.self])
        let store = try fixture.open()
        let order = Order(id: 1)
        try store.write {
            let a = OrderLine("a")
            let b = OrderLine("b")
            order.lines.append(a)
            try store.add(order)
            a.parts.insert(b)
            b.parts.insert(a)
        }
        try store.write { try store.delete(order) }
        #expect(texts(store).isEmpty)
    }

    @Test("verify() reports the orphans an owner dropped without deleting; Results deletes cascade too")
    func orphans() throws {
        let fixture = Fixture([Order.self])
        let store = try fixture.open()
        try store.write {
            for id in 1...3 {
                let order = Order(id: id)
                order.lines.append(objectsIn: [OrderLine("\(id)a"), OrderLine("\(id)b")])
                try store.add(order)
            }
        }
        #expect(try store.verify().orphans.isEmpty)
        try store.write { _ = store.object(ofType: Order.self, forPrimaryKey: 1)!.lines.removeFirst() }
        let orphans = try store.verify().orphans
        #expect(orphans.count == 1)
        // The dynamic API (what `strata verify` runs) finds the same orphan from the file alone.
        #expect(try DynamicStore(path: fixture.configuration.fileURL!.path).verify().orphans == orphans)
        try store.write { try store.delete(store.objects(Order.self).where { $0.id >= 2 }) }
        #expect(texts(store) == ["1a", "1b"])
    }
}
