import Foundation
import StrataTestModels
import StrataTestSupport
import Testing

@testable import Strata

/// Iterations over objects with UUID keys (decoded in line while a read snapshot reads rows ahead,
/// re-pointing one accessor from key to key) checked against a plain model: every visit is the
/// object the Results held when the iteration began, in the order of the keys' bytes; objects kept
/// from the loop keep showing their own row; commits of this thread and of another at random steps
/// (the walk then detaches and visits the keys it had left).
@Suite(.fixtureChecks) struct UUIDIterationModelTests {
    @Test(arguments: [1, 2, 3, 4, 5] as [UInt64])
    func uuidKeyedIterationsMatchAPlainModel(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        let fixture = Fixture([ByUUID.self])
        let store = try fixture.open()
        let configuration = fixture.configuration
        var model: [UUID: Int] = [:]
        for round in 0..<60 {
            if round % 10 == 0 {
                model = Dictionary(
                    uniqueKeysWithValues: (0..<Int.random(in: 0...260, using: &random)).map { _ in
                        (Self.uuid(using: &random), Int.random(in: 0...1_000, using: &random))
                    })
                let objects = model
                try store.write {
                    try store.delete(store.objects(ByUUID.self))
                    for (id, value) in objects { try store.add(Self.object(id, value)) }
                }
            }
            let held = model.keys.sorted(by: Self.keyOrder)
            let inWrite = round % 3 == 2
            // What the Store shows during the iteration, and the newest commit (another thread's too).
            var visible = model
            var latest = model
            var kept: [(ByUUID, UUID)] = []
            var step = 0
            let iterate = { () throws -> Void in
                for object in store.objects(ByUUID.self) {
                    guard step < held.count else {
                        Issue.record("seed \(seed) round \(round): more visits than the \(held.count) objects held")
                        return
                    }
                    let id = held[step]
                    if let value = visible[id] {
                        #expect(
                            !object.isInvalidated && object.id == id && object.value == value,
                            "seed \(seed) round \(round) step \(step): expected \(id) holding \(value)")
                    } else {
                        #expect(object.isInvalidated, "seed \(seed) round \(round) step \(step): \(id) was deleted")
                    }
                    if !object.isInvalidated, Int.random(in: 0..<8, using: &random) == 0 { kept.append((object, id)) }
                    if Int.random(in: 0..<40, using: &random) == 0 {
                        try change(store, configuration, &visible, &latest, inWrite: inWrite, using: &random)
                    }
                    step += 1
                }
            }
            if inWrite {
                try store.write { try iterate() }
            } else {
                try iterate()
                try store.refresh()
            }
            #expect(step == held.count, "seed \(seed) round \(round): \(step) visits of \(held.count)")
            model = latest
            for (object, id) in kept where !object.isInvalidated {
                #expect(object.id == id, "seed \(seed) round \(round): a kept object moved to another row")
                #expect(object.value == model[id], "seed \(seed) round \(round): a kept object shows another value")
            }
            let read = store.objects(ByUUID.self).map { ($0.id, $0.value) }
            #expect(read.map(\.0) == model.keys.sorted(by: Self.keyOrder), "seed \(seed) round \(round)")
            #expect(read.allSatisfy { model[$0.0] == $0.1 }, "seed \(seed) round \(round)")
        }
        try store.verify()
    }

    /// Deletes, changes and adds a few objects: in the iteration's own write, in a write of this Store
    /// (which begins at the newest commit, and the Store then shows it), or in another thread's (shown
    /// after the refresh at the end of the round).
    func change(
        _ store: Store, _ configuration: Store.Configuration, _ visible: inout [UUID: Int],
        _ latest: inout [UUID: Int], inWrite: Bool, using random: inout SplitMix64
    ) throws {
        let base = inWrite ? visible : latest
        let ids = Array(base.keys)
        let deleted = Set(
            (0..<Int.random(in: 0...3, using: &random)).compactMap { _ in ids.randomElement(using: &random) })
        let changed = Set(
            (0..<Int.random(in: 0...3, using: &random)).compactMap { _ in ids.randomElement(using: &random) }
        )
        .subtracting(deleted)
        let added = (0..<Int.random(in: 0...3, using: &random)).map { _ in Self.uuid(using: &random) }
        let value = Int.random(in: 2_000...3_000, using: &random)
        let apply: @Sendable (Store) throws -> Void = { target in
            for id in deleted {
                if let object = target.object(ofType: ByUUID.self, forPrimaryKey: id) { try target.delete(object) }
            }
            for id in changed { target.object(ofType: ByUUID.self, forPrimaryKey: id)?.value = value }
            for id in added { try target.add(Self.object(id, value)) }
        }
        var next = base
        for id in deleted { next[id] = nil }
        for id in changed { next[id] = value }
        for id in added { next[id] = value }
        latest = next
        if inWrite {
            try apply(store)
            visible = next
        } else if Bool.random(using: &random) {
            try store.write { try apply(store) }
            visible = next
        } else {
            let committed = onAnotherThread { () -> Bool in
                guard let other = try? Store(configuration: configuration) else { return false }
                return (try? other.write { try apply(other) }) != nil
            }
            #expect(committed)
        }
    }

    static func object(_ id: UUID, _ value: Int) -> ByUUID {
        let object = ByUUID()
        object.id = id
        object.value = value
        return object
    }

    static func uuid(using random: inout SplitMix64) -> UUID {
        var bytes = [UInt8](repeating: 0, count: 16)
        for index in bytes.indices { bytes[index] = UInt8.random(in: 0...255, using: &random) }
        return bytes.withUnsafeBytes { UUID(uuid: $0.loadUnaligned(as: uuid_t.self)) }
    }

    /// How the Store orders UUID keys: by their bytes.
    static func keyOrder(_ lhs: UUID, _ rhs: UUID) -> Bool {
        withUnsafeBytes(of: lhs.uuid) { left in
            withUnsafeBytes(of: rhs.uuid) { right in left.lexicographicallyPrecedes(right) }
        }
    }
}
