import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// A code the type only takes with its prefix: it refuses every sample value Strata has ("", the
/// probes), and lists no `persistedSamples`.
struct StrictCode: FailableCustomPersistable, Equatable {
    let text: String
    init?(persistedValue: String) {
        guard persistedValue.hasPrefix("CODE-") else { return nil }
        text = persistedValue
    }
    var persistableValue: String { text }
}

/// The stored forms a failable type reads: written as plain Strings (V1), read as the custom types (V2).
enum FailableV1 {
    final class Badge: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var code: String = "CODE-0"
        @Persisted var spare: String?
        @Persisted var history: List<String?>
        @Persisted var byName: Map<String, String?>
    }
}

enum FailableV2 {
    final class Badge: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var code = StrictCode(persistedValue: "CODE-0")!
        @Persisted var spare: StrictCode?
        @Persisted var history: List<StrictCode?>
        @Persisted var byName: Map<String, StrictCode?>
    }
}

@Suite("Failable custom types", .fixtureChecks)
struct FailableCustomTests {
    /// Badges 1 (all accepted), 2 (spare refused), 3 (no spare), each with a refused and an accepted
    /// history element and Map value; then opened with the custom types.
    func stored(_ fixture: Fixture) throws -> Store {
        let v1 = Store.Configuration(fileURL: fixture.configuration.fileURL!, objectTypes: [FailableV1.Badge.self])
        do {
            let store = try Store(configuration: v1)
            try store.write {
                for (id, spare) in [(1, "CODE-1"), (2, "refused"), (3, nil)] as [(Int, String?)] {
                    let badge = FailableV1.Badge()
                    badge.id = id
                    badge.code = "CODE-\(id)"
                    badge.spare = spare
                    badge.history.append(objectsIn: ["nope", "CODE-h\(id)", nil])
                    badge.byName["bad"] = "nope"
                    badge.byName["good"] = "CODE-m\(id)"
                    try store.add(badge)
                }
            }
        }
        let v2 = Store.Configuration(fileURL: fixture.configuration.fileURL!, objectTypes: [FailableV2.Badge.self])
        return try Store(configuration: v2)
    }

    @Test("an optional property (List element, Map value) holding a form the type refuses reads nil, as in Realm")
    func refusedOptionalReadsNil() throws {
        let fixture = Fixture([FailableV2.Badge.self])
        let store = try stored(fixture)
        let badges = store.objects(FailableV2.Badge.self)
        #expect(badges.map { $0.spare?.text } == ["CODE-1", nil, nil])
        #expect(badges[0].history.map { $0?.text } == [nil, "CODE-h1", nil])
        #expect(badges[0].byName["bad"] == .some(nil))
        #expect(badges[0].byName["good"]??.text == "CODE-m1")
        #expect(badges.map(\.code.text) == ["CODE-1", "CODE-2", "CODE-3"])
        #expect(badges.where { $0.spare == nil }.map(\.id) == [2, 3])
    }

    @Test("a query naming a property of a type that refuses every sample value finds it, never traps")
    func queriesOnAStrictType() throws {
        let fixture = Fixture([FailableV2.Badge.self])
        let store = try stored(fixture)
        let badges = store.objects(FailableV2.Badge.self)
        #expect(badges.where { $0.code == StrictCode(persistedValue: "CODE-2")! }.map(\.id) == [2])
        #expect(badges.where { $0.code != StrictCode(persistedValue: "CODE-2")! }.map(\.id) == [1, 3])
        #expect(badges.where { $0.spare == StrictCode(persistedValue: "CODE-1")! }.map(\.id) == [1])
        #expect(badges.where { $0.spare != nil }.map(\.id) == [1])
        #expect(badges.sorted(by: \.code, ascending: false).map(\.id) == [3, 2, 1])
        #expect(try badges.where("code == $0", "CODE-3").map(\.id) == [3])
        var changes = 0
        let token = try badges.observe(keyPaths: [\.code, \.spare]) { change in
            if case .update = change { changes += 1 }
        }
        try store.write { badges[0].code = StrictCode(persistedValue: "CODE-9")! }
        try store.refresh()
        #expect(changes == 1)
        token.invalidate()
    }

    static func readRefusedRequired(_ path: String) {
        let v1 = Store.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [FailableV1.Badge.self])
        let v2 = Store.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [FailableV2.Badge.self])
        do {
            do {
                let store = try Store(configuration: v1)
                try store.write {
                    let badge = FailableV1.Badge()
                    badge.id = 1
                    badge.code = "refused"
                    try store.add(badge)
                }
            }
            let store = try Store(configuration: v2)
            _ = store.objects(FailableV2.Badge.self)[0].code
        } catch {
            fatalError("setting up the child failed: \(error)")
        }
    }

    @Test("a non-optional property holding a refused form still traps, naming the type and the value")
    func refusedRequiredTraps() async throws {
        let fixture = Fixture([FailableV2.Badge.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            FailableCustomTests.readRefusedRequired(path)
        }
        let output = standardError(of: result)
        #expect(output.contains("StrictCode refuses the stored String refused"), "\(output)")
    }
}
