import Foundation
import StrataTestSupport
import Testing

@testable import Strata

@Suite(.fixtureChecks, .offThePool) struct QueryLanguageTests {
    /// Ann 30 (Rex 3, Fido 1), bob 17 (Spot 5), Cy 45 (no email, no dogs), Dee 17, Eve 62 (Max 1, Bo 2).
    func populated() throws -> (Fixture, Store) {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        try store.write {
            let people = [(1, "Ann", 30), (2, "bob", 17), (3, "Cy", 45), (4, "Dee", 17), (5, "Éve", 62)].map {
                Person(id: $0.0, name: $0.1, age: $0.2)
            }
            for person in people where person.id != 3 { person.email = "\(person.name.lowercased())@example.com" }
            try store.add(contentsOf: people)
            let dogs: [(Int, String)] = [(0, "Rex"), (0, "Fido"), (1, "Spot"), (4, "Max"), (4, "Bo")]
            for (owner, name) in dogs {
                let dog = Dog(name: name, owner: people[owner])
                people[owner].dogs.append(dog)
            }
        }
        return (fixture, store)
    }

    private func ids(_ store: Store, _ query: String, _ arguments: any Sendable...) throws -> [Int] {
        try store.objects(Person.self).where(query, arguments: arguments).map(\.id)
    }

    @Test func comparisonsArgumentsAndLogic() throws {
        let (_, store) = try populated()
        #expect(try ids(store, "age > $0 AND name BEGINSWITH[c] $1", 18, "a") == [1])
        #expect(try ids(store, "age >= 18 && (name BEGINSWITH 'A' || email == nil)") == [1, 3])
        #expect(try ids(store, "NOT age < 30") == [1, 3, 5])
        #expect(try ids(store, "age BETWEEN {17, 30}") == [1, 2, 4])
        #expect(try ids(store, "id IN {5, 1, 9}") == [1, 5])
        #expect(try ids(store, "id IN $0", [2, 3]) == [2, 3])
        #expect(try ids(store, "30 < age") == [3, 5])
        #expect(try ids(store, "email != nil AND email ENDSWITH '.com'") == [1, 2, 4, 5])
        #expect(try ids(store, "name CONTAINS[c] 'E'") == [4, 5])
        #expect(try ids(store, "name BEGINSWITH[d] 'Eve'") == [5])
        #expect(try ids(store, "name LIKE '?o*'") == [2])
        #expect(try ids(store, "name ==[c] 'BOB'") == [2])  // Realm: case-insensitive equality
        #expect(try ids(store, "name !=[c] 'BOB'") == [1, 3, 4, 5])
        #expect(try ids(store, "email ==[c] 'BOB@EXAMPLE.COM'") == [2])
        #expect(try ids(store, "TRUEPREDICATE").count == 5)
        #expect(try ids(store, "FALSEPREDICATE").isEmpty)
    }

    @Test func collectionsAndSubqueries() throws {
        let (_, store) = try populated()
        #expect(try ids(store, "ANY dogs.name == 'Rex'") == [1])
        #expect(try ids(store, "dogs.name == 'Bo'") == [5])  // ANY by default
        #expect(try ids(store, "ALL dogs.name BEGINSWITH 'S'") == [2, 3, 4])  // true for no dogs
        #expect(try ids(store, "NONE dogs.name == 'Rex'") == [2, 3, 4, 5])
        #expect(try ids(store, "dogs.@count == 2") == [1, 5])
        #expect(try ids(store, "dogs.@size > 0 SORT(age DESC)") == [5, 1, 2])
        #expect(try ids(store, "SUBQUERY(dogs, $d, $d.name ENDSWITH 'o' OR $d.name == 'Rex').@count >= 2") == [1])
        let dogs = try store.objects(Dog.self).where("owner.age > 40 SORT(name ASC)")
        #expect(dogs.map(\.name) == ["Bo", "Max"])
    }

    /// `LinkingObjects` in the string language: counts, quantified conditions and aggregates over the
    /// objects linking to each one.
    @Test func linkingObjects() throws {
        let (_, store) = try populated()
        let dogs = store.objects(Dog.self)
        func names(_ query: String, _ arguments: any Sendable...) throws -> [String] {
            try dogs.where(query, arguments: arguments).map(\.name).sorted()
        }
        #expect(try names("walkers.@count == 0").isEmpty)
        #expect(try names("ANY walkers.age > $0", 40) == ["Bo", "Max"])
        #expect(try names("ALL walkers.name BEGINSWITH 'A'") == ["Fido", "Rex"])
        #expect(try names("walkers.@max.age < 20") == ["Spot"])
        #expect(try names("walkers.@count == 1 AND walkers.@sum.age == 17") == ["Spot"])
        // The closure form finds the same dogs.
        func closure(_ query: (Query<Dog>) -> Query<Bool>) -> [String] { dogs.where(query).map(\.name).sorted() }
        #expect(closure { $0.walkers.count == 0 }.isEmpty)
        #expect(closure { $0.walkers.contains { $0.age > 40 } } == ["Bo", "Max"])
        #expect(closure { $0.walkers.allSatisfy { $0.name.starts(with: "A") } } == ["Fido", "Rex"])
        #expect(closure { $0.walkers.max(of: \.age) < 20 } == ["Spot"])
        #expect(closure { $0.walkers.count == 1 && $0.walkers.sum(of: \.age) == 17 } == ["Spot"])
        #expect { try dogs.where("walkers > 1") } throws: { isCase($0, .invalidArgument("")) }
    }

    /// `map['key']` in the string language finds what `$0.map["key"]` finds: a value under a key,
    /// nil for an absent key, string operators on the value; and the dynamic API reads the same.
    @Test func mapValuesUnderAKey() throws {
        let fixture = Fixture([Contact.self, Dog.self, Person.self])
        let store = try fixture.open()
        try store.write {
            for (name, home, score) in [("Ann", "111", 3), ("Bob", "222", 7), ("Cy", nil, 5), ("Dee", "2x", nil)] {
                let contact = Contact(name: name)
                if let home { contact.phones["home"] = home }
                contact.phones["work"] = "9"
                contact.scores["math"] = score
                try store.add(contact)
            }
        }
        let contacts = store.objects(Contact.self)
        func names(_ results: Results<Contact>) -> [String] { results.map(\.name).sorted() }
        func agree(_ closure: Results<Contact>, _ text: String, _ expected: [String]) throws {
            #expect(names(closure) == expected, "\(text)")
            #expect(names(try contacts.where(text)) == expected, "\(text)")
        }
        try agree(contacts.where { $0.phones["home"] == "111" }, "phones['home'] == '111'", ["Ann"])
        try agree(contacts.where { $0.phones["home"] == nil }, "phones['home'] == nil", ["Cy"])
        try agree(
            contacts.where { $0.phones["home"].starts(with: "2") }, "phones[\"home\"] BEGINSWITH '2'", ["Bob", "Dee"])
        try agree(contacts.where { $0.scores["math"] > 4 }, "scores['math'] > 4", ["Bob", "Cy"])
        try agree(contacts.where { $0.scores["math"] == nil }, "scores['math'] == nil", ["Dee"])
        try agree(contacts.where { $0.phones.count == 2 }, "phones.@count == 2", ["Ann", "Bob", "Dee"])
        #expect(names(try contacts.where("scores['math'] > $0", 4)) == ["Bob", "Cy"])
        // A value of the wrong type is a typed error naming the key path.
        #expect {
            try contacts.where("scores['math'] > 'x'")
        } throws: { error in
            guard case .invalidArgument(let message) = error as? StoreError else { return false }
            return message.contains("scores")
        }
        // A Map's keys and values as collections: `@keys`, `@values`, with ANY (the default), ALL, NONE.
        try agree(
            contacts.where { $0.phones.keys.contains("home") }, "ANY phones.@keys == 'home'", ["Ann", "Bob", "Dee"])
        try agree(contacts.where { !$0.phones.keys.contains("home") }, "NONE phones.@keys == 'home'", ["Cy"])
        try agree(
            contacts.where { $0.phones.values.contains("9") }, "phones.@values == '9'", ["Ann", "Bob", "Cy", "Dee"])
        #expect(names(try contacts.where("ALL phones.@values BEGINSWITH '2' OR ALL phones.@values == '9'")) == ["Cy"])
        #expect(names(try contacts.where("ANY scores.@values > 4")) == ["Bob", "Cy"])
        #expect(names(try contacts.where("phones.@keys BEGINSWITH[c] 'HO'")) == ["Ann", "Bob", "Dee"])
        let file = try DynamicStore(path: fixture.path)
        #expect(try file.objects(ofType: "Contact", where: "phones['home'] == '222'").count == 1)
        #expect(try file.objects(ofType: "Contact", where: "ANY phones.@keys == 'home'").count == 3)
        #expect(try file.objects(ofType: "Contact", where: "NONE scores.@values > 4").count == 2)
    }

    @Test func clauses() throws {
        let (_, store) = try populated()
        #expect(try ids(store, "TRUEPREDICATE SORT(age DESC, name ASC) LIMIT(3)") == [5, 3, 1])
        #expect(try ids(store, "TRUEPREDICATE SORT(age ASC, id DESC)") == [4, 2, 1, 3, 5])
        #expect(try ids(store, "age < 40 DISTINCT(age)") == [1, 2])
        #expect(try ids(store, "TRUEPREDICATE LIMIT(0)").isEmpty)
    }

    /// An argument is a value, never text of the query: input that looks like a condition changes nothing.
    @Test func argumentsAreNeverSpliced() throws {
        let (_, store) = try populated()
        #expect(try ids(store, "name == $0", "x' OR TRUEPREDICATE OR name == 'y").isEmpty)
        #expect(try ids(store, "name == $0", "Ann") == [1])
    }

    /// Every mistake is `.invalidArgument` naming the position and the property, never a trap.
    @Test func mistakesAreTypedErrors() throws {
        let (_, store) = try populated()
        func message(_ query: String, _ arguments: [any Sendable] = []) -> String? {
            do {
                _ = try store.objects(Person.self).where(query, arguments: arguments)
                return nil
            } catch {
                guard case .invalidArgument(let text) = error else { return "not invalidArgument: \(error)" }
                return text
            }
        }
        #expect(message("agee > 3")?.contains("at 0: Person has no property \"agee\"") == true)
        #expect(message("age > 'old'")?.contains("is not a Int for age") == true)
        #expect(message("age > $1", [3])?.contains("$1 has no argument") == true)
        #expect(message("age >")?.contains("at 5") == true)
        #expect(message("age > 3 AND (name == 'x'")?.contains("expected \")\"") == true)
        #expect(message("name BEGINSWITH 3")?.contains("needs a string") == true)
        #expect(message("age BEGINSWITH 'x'")?.contains("needs a String property") == true)
        #expect(message("dogs.@sum.name > 1")?.contains("no number property") == true)
        #expect(message("TRUEPREDICATE SORT(dogs ASC)")?.contains("SORT and DISTINCT") == true)
        // Realm Query Language's grammar: a condition first, a direction for every SORT key.
        #expect(message("")?.contains("at 0: a query starts with a condition") == true)
        #expect(message("SORT(age ASC)")?.contains("at 0: a query starts with a condition") == true)
        #expect(message("TRUEPREDICATE SORT(age)")?.contains("at 22: SORT(age) needs a direction") == true)
        #expect(message("name == 'unterminated")?.contains("not closed") == true)
        #expect(message("age > 3 #")?.contains("unexpected character") == true)
    }
}

final class Shelf: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var boxes: List<QueryTarget>
}

@Suite(.fixtureChecks) struct CollectionQueryTests {
    /// Shelf 1: weights 1, 2, 3; shelf 2: 5; shelf 3: none; shelf 4: 2, 2.
    private func shelves() throws -> (Fixture, Store) {
        let fixture = Fixture([Shelf.self, QueryTarget.self])
        let store = try fixture.open()
        try store.write {
            var next = 0
            for (id, weights) in [(1, [1, 2, 3]), (2, [5]), (3, []), (4, [2, 2])] {
                let shelf = Shelf()
                shelf.id = id
                for weight in weights {
                    let box = QueryTarget()
                    box.id = next
                    box.weight = weight
                    next += 1
                    shelf.boxes.append(box)
                }
                try store.add(shelf)
            }
        }
        return (fixture, store)
    }

    /// The closure form and the string language agree on ANY, ALL, NONE, counts and aggregates.
    @Test func closureAndStringFormsAgree() throws {
        let (_, store) = try shelves()
        let shelves = store.objects(Shelf.self)
        func ids(_ results: Results<Shelf>) -> [Int] { results.map(\.id) }
        let pairs: [(Results<Shelf>, String, [Int])] = [
            (shelves.where { $0.boxes.contains { $0.weight > 2 } }, "ANY boxes.weight > 2", [1, 2]),
            (shelves.where { $0.boxes.allSatisfy { $0.weight >= 2 } }, "ALL boxes.weight >= 2", [2, 3, 4]),
            (shelves.where { !$0.boxes.contains { $0.weight == 2 } }, "NONE boxes.weight == 2", [2, 3]),
            (shelves.where { $0.boxes.count == 2 }, "boxes.@count == 2", [4]),
            (shelves.where { $0.boxes.sum(of: \.weight) >= 5 }, "boxes.@sum.weight >= 5", [1, 2]),
            (shelves.where { $0.boxes.sum(of: \.weight) == 0 }, "boxes.@sum.weight == 0", [3]),
            (shelves.where { $0.boxes.average(of: \.weight) == 2 }, "boxes.@avg.weight == 2", [1, 4]),
            (shelves.where { $0.boxes.max(of: \.weight) < 3 }, "boxes.@max.weight < 3", [4]),
            (shelves.where { $0.boxes.min(of: \.weight) == 1 }, "boxes.@min.weight == 1", [1]),
        ]
        for (closure, text, expected) in pairs {
            #expect(ids(closure) == expected, "\(text)")
            #expect(ids(try shelves.where(text)) == expected, "\(text)")
        }
        #expect(ids(try shelves.where("SUBQUERY(boxes, $b, $b.weight == 2).@count == 2")) == [4])
        #expect(ids(shelves.where { $0.boxes.count { $0.weight == 2 } == 2 }) == [4])
        #expect(ids(shelves.where { $0.boxes.count { $0.weight > 1 && $0.weight < 4 } >= 1 }) == [1, 4])
        #expect(ids(try shelves.where("SUBQUERY(boxes, $b, $b.weight > 1 AND $b.weight < 4).@count >= 1")) == [1, 4])
    }

    /// Every string operator and `BETWEEN` give the same objects in both forms: `like`, `[c]`, `[d]`,
    /// `[cd]` (`StringOptions`), `contains(a...b)`, and `count { }` on a LinkingObjects.
    @Test func stringOperatorsAndRangesAgreeInBothForms() throws {
        let (_, store) = try QueryLanguageTests().populated()
        let people = store.objects(Person.self)
        func ids(_ results: Results<Person>) -> [Int] { results.map(\.id) }
        func agree(_ closure: Results<Person>, _ text: String) throws {
            #expect(ids(closure) == ids(try people.where(text)), "\(text)")
        }
        try agree(people.where { $0.name.like("?o*") }, "name LIKE '?o*'")
        try agree(people.where { $0.name.like("*E", options: .caseInsensitive) }, "name LIKE[c] '*E'")
        try agree(
            people.where { $0.name.like("eve", options: [.caseInsensitive, .diacriticInsensitive]) },
            "name LIKE[cd] 'eve'")
        try agree(
            people.where { $0.name.starts(with: "Eve", options: .diacriticInsensitive) }, "name BEGINSWITH[d] 'Eve'")
        try agree(
            people.where { $0.name.starts(with: "eve", options: .diacriticInsensitive) }, "name BEGINSWITH[d] 'eve'")
        try agree(
            people.where { $0.name.contains("V", options: [.caseInsensitive, .diacriticInsensitive]) },
            "name CONTAINS[cd] 'V'")
        try agree(people.where { $0.name.ends(with: "E", options: .caseInsensitive) }, "name ENDSWITH[c] 'E'")
        try agree(people.where { $0.email.contains("example") }, "email CONTAINS 'example'")
        try agree(people.where { $0.age.contains(17...30) }, "age BETWEEN {17, 30}")
        try agree(people.where { $0.name.contains("B"..."D") }, "name BETWEEN {'B', 'D'}")
        try agree(
            people.where { $0.dogs.count { $0.name.like("*o*") } >= 1 },
            "SUBQUERY(dogs, $d, $d.name LIKE '*o*').@count >= 1")
        #expect(ids(people.where { $0.name.like("?o*") }) == [2])
        #expect(ids(people.where { $0.name.starts(with: "Eve", options: .diacriticInsensitive) }) == [5])
        #expect(ids(people.where { $0.name.starts(with: "Eve") }).isEmpty)
        #expect(ids(people.where { $0.age.contains(17...30) }) == [1, 2, 4])
        #expect(ids(people.where { $0.dogs.count { $0.name.like("*o*") } >= 1 }) == [1, 2, 5])  // Fido, Spot, Bo
        let dogs = store.objects(Dog.self)
        #expect(dogs.where { $0.walkers.count { $0.age > 40 } == 1 }.map(\.name).sorted() == ["Bo", "Max"])
        #expect(try dogs.where("SUBQUERY(walkers, $w, $w.age > 40).@count == 1").map(\.name).sorted() == ["Bo", "Max"])
    }

    /// `list.where`, `list.sorted`: live Results in the list's order.
    @Test func listWhereAndSorted() throws {
        let (_, store) = try shelves()
        let first = store.object(ofType: Shelf.self, forPrimaryKey: 1)!
        let heavy = first.boxes.where { $0.weight >= 2 }
        #expect(heavy.map(\.weight) == [2, 3])
        #expect(first.boxes.sorted(by: \.weight, ascending: false).map(\.weight) == [3, 2, 1])
        #expect(try first.boxes.where("weight < $0", 3).map(\.weight) == [1, 2])
        try store.write {
            let box = QueryTarget()
            box.id = 100
            box.weight = 9
            first.boxes.insert(box, at: 0)
        }
        #expect(heavy.map(\.weight) == [9, 2, 3])  // live, in the list's order
        #expect(heavy.count == 3)
    }

    /// `list.observe`: positions of insertions, deletions and modifications of the objects it holds.
    @Test func listObserve() throws {
        let (_, store) = try shelves()
        let first = store.object(ofType: Shelf.self, forPrimaryKey: 1)!
        var changes: [String] = []
        let token = try first.boxes.observe { change in
            switch change {
            case .initial(let list): changes.append("initial \(list.count)")
            case .update(_, let deletions, let insertions, let modifications):
                changes.append("d\(deletions) i\(insertions) m\(modifications)")
            case .error(let error): changes.append("error \(error)")
            }
        }
        try store.write {
            let box = QueryTarget()
            box.id = 100
            box.weight = 9
            first.boxes.append(box)
        }
        try store.write { first.boxes.remove(at: 0) }
        try store.write { first.boxes[0].weight = 7 }
        try store.refresh()
        #expect(changes == ["initial 3", "d[] i[3] m[]", "d[0] i[] m[]", "d[] i[] m[0]"])
        token.invalidate()
    }
}

/// The dynamic API runs the same queries on the stored schema: the same objects as `Results.where`.
@Suite(.fixtureChecks) struct DynamicQueryTests {
    /// A table large enough for the split walk (`ScanSplit`): a DynamicStore's conditions, pages,
    /// sorts and DISTINCT find what Results find; each call reads the newest commit.
    @Test func aSplitWalkServesADynamicStoreAsItServesResults() throws {
        let fixture = Fixture([Shelf.self, QueryTarget.self])
        let store = try fixture.open()
        var random = SplitMix64(state: 41)
        try store.write {
            for id in 0..<(ScanSplit.minimumRows + 2_000) {
                let box = QueryTarget()
                box.id = id
                box.weight = Int.random(in: 0..<50, using: &random)
                try store.add(box)
            }
        }
        let file = try DynamicStore(path: fixture.path)
        let boxes = store.objects(QueryTarget.self)
        let queries = [
            "weight > 40", "weight == 7 SORT(id DESC) LIMIT(5)", "weight >= 1 SORT(weight ASC, id DESC) LIMIT(20)",
            "id > 100 DISTINCT(weight)", "weight < 3 SORT(weight DESC)", "weight == 49 LIMIT(3) SORT(id DESC)",
        ]
        for query in queries {
            let expected = try boxes.where(query).map { String($0.id) }
            #expect(try file.objects(ofType: "QueryTarget", where: query).map(\.primaryKey) == expected, "\(query)")
        }
        try store.write {
            let box = QueryTarget()
            box.id = -1
            box.weight = 99
            try store.add(box)
        }
        #expect(try file.objects(ofType: "QueryTarget", where: "weight > 98").map(\.primaryKey) == ["-1"])
    }

    @Test func generatedQueriesMatchTypedResults() throws {
        let fixture = Fixture([Shelf.self, QueryTarget.self])
        do {
            let store = try fixture.open()
            try store.write {
                for id in 0..<40 {
                    let shelf = Shelf()
                    shelf.id = id
                    for offset in 0..<(id % 4) {
                        let box = QueryTarget()
                        box.id = id * 10 + offset
                        box.weight = (id + offset) % 5
                        shelf.boxes.append(box)
                    }
                    try store.add(shelf)
                }
            }
        }
        let typed = try fixture.open()
        let dynamic = try DynamicStore(path: fixture.path)
        let queries = [
            "ANY boxes.weight > 2", "ALL boxes.weight < 3", "NONE boxes.weight == 1", "boxes.@count BETWEEN {1, 2}",
            "boxes.@sum.weight >= $0", "SUBQUERY(boxes, $b, $b.weight IN {0, 4}).@count == 1", "id > 30 OR id < $1",
            "id >= 5 SORT(id DESC) LIMIT(4)", "TRUEPREDICATE", "NOT (id != 3)",
        ]
        for query in queries {
            let expected = try typed.objects(Shelf.self).where(query, 4, 3).map { String($0.id) }
            let found = try dynamic.objects(ofType: "Shelf", where: query, arguments: [4, 3]).map(\.primaryKey)
            #expect(found == expected, "\(query)")
        }
        let boxes = try dynamic.objects(ofType: "QueryTarget", where: "weight == 4 DISTINCT(weight)")
        #expect(boxes.count == 1)
        #expect { try dynamic.objects(ofType: "Shelf", where: "boxes.weight >") } throws: {
            isCase($0, .invalidArgument(""))
        }
    }
}

extension Person {
    /// The section key of the examples: the name's first letter.
    var initial: String { name.first.map(String.init) ?? "" }
}

@Suite(.fixtureChecks) struct SectionedResultsTests {
    @Test func sectionsByAStoredAndAComputedKey() throws {
        let fixture = Fixture([Person.self, Dog.self])
        let store = try fixture.open()
        try store.write {
            for (id, name, age) in [(1, "Ann", 30), (2, "Bea", 17), (3, "Al", 45), (4, "Bo", 17), (5, "Cy", 30)] {
                try store.add(Person(id: id, name: name, age: age))
            }
        }
        let byAge = store.objects(Person.self).sectioned(by: \.age)
        #expect(byAge.allKeys == [17, 30, 45])
        #expect(byAge[0].map(\.id) == [2, 4])
        #expect(byAge[IndexPath(indexes: [1, 1])].id == 5)
        let byLetter = store.objects(Person.self).sectioned(by: \.initial, sortDescriptors: [SortKey(\.name)])
        #expect(byLetter.allKeys == ["A", "B", "C"])
        #expect(byLetter.map { $0.map(\.name) } == [["Al", "Ann"], ["Bea", "Bo"], ["Cy"]])

        var changes: [String] = []
        let token = try byLetter.observe { change in
            switch change {
            case .initial(let sections): changes.append("initial \(sections.count)")
            case .update(_, let deletions, let insertions, let modifications, let newSections, let goneSections):
                changes.append(
                    "d\(deletions.map(Array.init)) i\(insertions.map(Array.init)) "
                        + "m\(modifications.map(Array.init)) +\(Array(newSections)) -\(Array(goneSections))")
            case .error(let error): changes.append("error \(error)")
            }
        }
        try store.write { try store.add(Person(id: 6, name: "Dee")) }  // a new section
        try store.write { try store.add(Person(id: 7, name: "Ava")) }  // into section A
        try store.write { try store.delete(store.object(ofType: Person.self, forPrimaryKey: 5)!) }  // section C goes
        try store.write { store.object(ofType: Person.self, forPrimaryKey: 2)!.age = 18 }  // modified in B
        try store.write { store.object(ofType: Person.self, forPrimaryKey: 4)!.name = "Ab" }  // Bo moves to A
        try store.refresh()
        #expect(
            changes == [
                "initial 3", "d[] i[] m[] +[3] -[]", "d[] i[[0, 2]] m[] +[] -[]", "d[] i[] m[] +[] -[2]",
                "d[] i[] m[[1, 0]] +[] -[]", "d[[1, 1]] i[[0, 0]] m[] +[] -[]",
            ], "\(changes)")
        token.invalidate()
    }
}
