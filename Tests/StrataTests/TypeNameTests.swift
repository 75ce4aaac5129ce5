import Foundation
import StrataTestSupport
import Testing

@testable import Strata

enum NameV0 {
    final class Person: Object {
        @Persisted(primaryKey: true) var id: Int
    }
}

enum NameV1 {
    final class Person: Object {
        @Persisted(primaryKey: true) var id: Int
        @Persisted var name: String
    }
}

/// A model is stored under its bare name: a Store asked for another class of the same name says
/// which class holds the name there.
@Suite(.fixtureChecks) struct TypeNameTests {
    @Test("add of another class of a stored name throws .schemaMismatch naming the class that holds it")
    func addNamesTheHolder() throws {
        let fixture = Fixture([NameV1.Person.self])
        let store = try fixture.open()
        #expect {
            try store.write { try store.add(NameV0.Person()) }
        } throws: { error in
            guard case StoreError.schemaMismatch(let message) = error else { return false }
            return message.contains("NameV0.Person is not in this Store's schema")
                && message.contains("another class, StrataTests.NameV1.Person, holds its stored name Person")
        }
    }

    static func queryTheOtherClass(_ path: String) {
        let configuration = Store.Configuration(fileURL: URL(fileURLWithPath: path), objectTypes: [NameV1.Person.self])
        guard let store = try? Store(configuration: configuration) else { fatalError("the child's Store did not open") }
        _ = store.objects(NameV0.Person.self).count
    }

    @Test("objects(_:) of another class of a stored name traps naming the class that holds it")
    func objectsNamesTheHolder() async throws {
        let fixture = Fixture([NameV1.Person.self])
        let path = fixture.path
        let result = await #expect(processExitsWith: .failure, observing: [\.standardErrorContent]) {
            [path = path as String] in
            TypeNameTests.queryTheOtherClass(path)
        }
        let output = standardError(of: result)
        #expect(output.contains("another class, StrataTests.NameV1.Person, holds its stored name Person"), "\(output)")
    }
}
