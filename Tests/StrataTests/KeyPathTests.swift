import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// Computed properties beside stored ones: a query or an observation must never take one for the
/// property it happens to read.
final class Measured: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var name: String
    @Persisted var first: String
    @Persisted var nickname: String?
    @Persisted var active: Bool
    @Persisted var ratio: Double
    @Persisted var mood: Mood
    @Persisted var tags: List<String>
    @Persisted var buddy: Measured?

    var doubled: Int { id * 2 }
    var shout: String { name.uppercased() }
    var fullName: String { first + " " + name }
    var inactive: Bool { !active }
    var nicknameOrName: String? { nickname ?? name }
    var nicknameOrEmpty: String? { nickname ?? "" }
    var buddyNameOrEmpty: String { buddy?.name ?? "" }
    var buddyNameOrNone: String? { buddy?.name ?? "none" }
    var buddyNameForced: String { buddy!.name }  // never evaluated with a nil link: refused before
    var tagCount: Int { tags.count }
    var percent: Double { ratio * 100 }
    var alias: Int { id }  // returns the property unchanged: the same as \.id

    convenience init(id: Int, name: String = "") {
        self.init()
        self.id = id
        self.name = name
    }
}

@Suite(.fixtureChecks) struct KeyPathTests {
    static let schema = try! ObjectSchema.of(Measured.self)

    static func names(_ keyPath: PartialKeyPath<Measured>) -> String? {
        KeyPathResolver.path(keyPath, in: schema)?.description
    }

    @Test func storedPropertiesAndLinkChainsResolve() {
        #expect(Self.names(\.id) == "id")
        #expect(Self.names(\.name) == "name")
        #expect(Self.names(\.nickname) == "nickname")
        #expect(Self.names(\.active) == "active")
        #expect(Self.names(\.mood) == "mood")
        #expect(Self.names(\.tags) == "tags")
        #expect(Self.names(\.buddy) == "buddy")
        #expect(Self.names(\.buddy?.name) == "buddy.name")
        #expect(Self.names(\.buddy?.nickname) == "buddy.nickname")
        #expect(Self.names(\.buddy?.buddy?.id) == "buddy.buddy.id")
        #expect(Self.names(\.alias) == "id")  // an alias reads and returns id itself
    }

    @Test func computedPropertiesAndTransformedValuesDoNotResolve() {
        #expect(Self.names(\.doubled) == nil)  // reads id, returns another value
        #expect(Self.names(\.shout) == nil)
        #expect(Self.names(\.fullName) == nil)  // two properties
        #expect(Self.names(\.inactive) == nil)
        #expect(Self.names(\.nicknameOrName) == nil)
        #expect(Self.names(\.nicknameOrEmpty) == nil)
        #expect(Self.names(\.buddyNameOrEmpty) == nil)
        #expect(Self.names(\.buddyNameOrNone) == nil)
        #expect(Self.names(\.buddyNameForced) == nil)
        #expect(Self.names(\.buddy!.name) == nil)  // through a link, only `?.` keeps a query's meaning
        #expect(Self.names(\.tagCount) == nil)
        #expect(Self.names(\.percent) == nil)
        #expect(Self.names(\.name.count) == nil)  // past a stored property
        #expect(Self.names(\.buddy?.doubled) == nil)
    }

    static func queryOnAComputedProperty(_ path: String) {
        let configuration = Store.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [Measured.self])
        do {
            let store = try Store(configuration: configuration)
            try store.write { try store.add(contentsOf: [Measured(id: 1), Measured(id: 2)]) }
            // Before: planned as `id == 2` (the read the recorder saw) and returned object 2.
            let found = store.objects(Measured.self).where { $0.doubled == 2 }
            print("found \(found.map(\.id))")
        } catch {
            fatalError("setting up the child failed: \(error)")
        }
    }

    @Test func aQueryOnAComputedPropertyTrapsNamingItAndWhereItIs() async {
        let fixture = Fixture([Measured.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            KeyPathTests.queryOnAComputedProperty(path)
        }
        let output = standardError(of: result)
        #expect(output.contains("does not name one @Persisted property of Measured"))
        #expect(output.contains("in the where { } at StrataTests/KeyPathTests.swift:"))
        #expect(!output.contains("found"))
    }

    @Test func observingAComputedPropertyThrowsNamingIt() throws {
        let fixture = Fixture([Measured.self])
        let store = try fixture.open()
        let object = Measured(id: 1)
        try store.write { try store.add(object) }
        #expect { _ = try object.observe(keyPaths: [\.doubled]) { _ in } } throws: { error in
            guard case .invalidArgument(let message) = error as? StoreError else { return false }
            return message.contains("does not name one @Persisted property of Measured")
        }
        #expect { _ = try store.objects(Measured.self).observe(keyPaths: [\.shout]) { _ in } } throws: {
            isCase($0, .invalidArgument(""))
        }
    }

    @Test func queriesThroughLinksAndOnEveryKindOfPropertyStillWork() throws {
        let fixture = Fixture([Measured.self])
        let store = try fixture.open()
        try store.write {
            let one = Measured(id: 1, name: "one")
            let two = Measured(id: 2, name: "two")
            two.buddy = one
            two.active = true
            two.mood = .calm
            two.tags.append("x")
            try store.add(contentsOf: [one, two])
        }
        let objects = store.objects(Measured.self)
        #expect(objects.where { $0.buddy.name == "one" }.map(\.id) == [2])
        #expect(objects.where { $0.active }.map(\.id) == [2])
        #expect(objects.where { $0.mood == .calm }.map(\.id) == [2])
        #expect(objects.where { $0.tags.count > 0 }.map(\.id) == [2])
        #expect(objects.where { $0.nickname == nil && $0.id == 1 }.map(\.id) == [1])
        #expect(objects.where { $0.alias == 2 }.map(\.id) == [2])
        // Sorting and aggregates run Swift on each object: computed properties give the right answer.
        #expect(objects.sorted(by: \.doubled, ascending: false).map(\.id) == [2, 1])
        #expect(objects.sum(of: \.doubled) == 6)
    }
}
