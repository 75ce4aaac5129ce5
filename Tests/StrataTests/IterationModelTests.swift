import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Iterations checked against a plain model. Tables of up to 300 rows (a read snapshot reads them
/// ahead 64 at a time, a write transaction a row at a time), commits of this thread and of another
/// at random steps, an iteration sometimes left early. Each visit must be the object the Results
/// held when the iteration began, in key order: invalidated once deleted, else with the values this
/// Store sees at that moment.
@Suite(.fixtureChecks) struct IterationModelTests {
    /// What the model knows: the committed objects (id → score), and those this Store sees.
    struct Model {
        var latest: [Int: Double] = [:]
        var visible: [Int: Double] = [:]
    }

    @Test(arguments: [1, 2, 3] as [UInt64])
    func iterationsMatchAPlainModel(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        let fixture = Fixture([Item.self])
        let store = try fixture.open()
        let configuration = fixture.configuration
        var model = Model()
        for round in 0..<80 {
            try reshape(store, &model, count: Int.random(in: 0...300, using: &random), using: &random)
            let inWrite = round % 4 == 3
            let held = model.visible.keys.sorted()
            // Steps at which something changes, chosen around the read-ahead's batch boundaries too.
            var steps = Set(
                (0..<Int.random(in: 0...4, using: &random)).map { _ in
                    Int.random(in: 0...max(held.count, 1), using: &random)
                })
            if !held.isEmpty, Bool.random(using: &random) {
                steps.insert([63, 64, 65, 127, 128].randomElement(using: &random)!)
            }
            let leaveAt =
                Int.random(in: 0..<5, using: &random) == 0 ? Int.random(in: 0...held.count, using: &random) : nil
            var step = 0
            let iterate = { () throws -> Void in
                for item in store.objects(Item.self) {
                    guard step < held.count else {
                        Issue.record("seed \(seed) round \(round): visited more than the \(held.count) objects held")
                        return
                    }
                    let id = held[step]
                    if let score = model.visible[id] {
                        #expect(
                            !item.isInvalidated && item.id == id && item.score == score,
                            "seed \(seed) round \(round) step \(step) in a write \(inWrite): expected \(id) holding \(score), found \(item.isInvalidated ? "an invalidated object" : "\(item.id) holding \(item.score)")"
                        )
                    } else {
                        #expect(item.isInvalidated, "seed \(seed) round \(round) step \(step): \(id) was deleted")
                    }
                    if steps.contains(step) {
                        try change(store, configuration, &model, inWrite: inWrite, current: item, using: &random)
                    }
                    step += 1
                    if step == leaveAt { break }
                }
            }
            if inWrite {
                try store.write {
                    model.visible = model.latest
                    try iterate()
                }
                model.latest = model.visible
            } else {
                try iterate()
            }
            #expect(step == (leaveAt ?? held.count), "seed \(seed) round \(round): \(step) visits of \(held.count)")
            try store.refresh()
            model.visible = model.latest
            #expect(store.objects(Item.self).map(\.id) == model.visible.keys.sorted(), "seed \(seed) round \(round)")
        }
        try store.verify()
    }

    /// Replaces the table by `count` objects with ids spread out (room for inserts between them).
    func reshape(_ store: Store, _ model: inout Model, count: Int, using random: inout SplitMix64) throws {
        var objects: [Int: Double] = [:]
        var id = Int.random(in: -5...5, using: &random)
        for _ in 0..<count {
            id += Int.random(in: 1...4, using: &random)
            objects[id] = Double(Int.random(in: 0...1_000, using: &random))
        }
        try store.write {
            try store.delete(store.objects(Item.self))
            try store.add(contentsOf: objects.map { Item(id: $0.key, score: $0.value, name: "i\($0.key)") })
        }
        model.latest = objects
        model.visible = objects
    }

    /// One change in the middle of an iteration: inside the iteration's write, in a write of this
    /// Store (a read iteration), or in another thread's write that this Store may or may not refresh to.
    func change(
        _ store: Store, _ configuration: Store.Configuration, _ model: inout Model, inWrite: Bool, current: Item,
        using random: inout SplitMix64
    ) throws {
        // A write begins at the newest commit: another thread's too, even when this Store did not refresh.
        let base = inWrite ? model.visible : model.latest
        let ids = base.keys.sorted()
        let deleted = Set(
            (0..<Int.random(in: 0...3, using: &random)).compactMap { _ in ids.randomElement(using: &random) })
        let changed = (0..<Int.random(in: 0...3, using: &random)).compactMap { _ in ids.randomElement(using: &random) }
            .filter { !deleted.contains($0) }
        let added = Set(
            (0..<Int.random(in: 0...3, using: &random)).map { _ in Int.random(in: -10...1_300, using: &random) }
                .filter { base[$0] == nil })
        let score = Double(Int.random(in: 2_000...3_000, using: &random))
        let apply: @Sendable (Store) throws -> Void = { target in
            for id in deleted { try target.delete(target.objects(Item.self).filter { $0.id == id }) }
            for id in changed { target.object(ofType: Item.self, forPrimaryKey: id)?.score = score }
            for id in added { try target.add(Item(id: id, score: score, name: "new")) }
        }
        var next = base
        if inWrite, !current.isInvalidated, Bool.random(using: &random) {
            current.score = score + 1  // the row the cursor stands on, replaced in place
            next[current.id] = score + 1
        }
        for id in deleted { next[id] = nil }
        for id in changed { next[id] = score }
        for id in added { next[id] = score }
        if inWrite {
            try apply(store)
            model.visible = next
            return
        }
        switch Int.random(in: 0..<3, using: &random) {
        case 0:
            try store.write { try apply(store) }  // begins at the newest commit: what another thread wrote too
            model.latest = next
            model.visible = next
        default:
            let committed = onAnotherThread { () -> Bool in
                guard let other = try? Store(configuration: configuration) else { return false }
                return (try? other.write { try apply(other) }) != nil
            }
            #expect(committed)
            model.latest = next
            if Bool.random(using: &random) {
                try store.refresh()
                model.visible = next
            }
        }
    }
}
