import Foundation
import StrataTestSupport
import Testing

@testable import Strata

/// `create(_:value:update:)` against a plain Swift model of Realm's rules: hundreds of seeded random
/// creations (dictionaries of some properties, arrays of the first ones, unmanaged objects; nested
/// tags as dictionaries, arrays or managed objects; every policy; some bad values), each in its own
/// write, the Store compared with the model after each.
@Suite(.fixtureChecks) struct CreateReferenceTests {
    struct Owner: Equatable {
        var name = ""
        var age = 18
        var tag: String?
        var tags: [String] = []
        var spot: Int?
    }

    struct Tag: Equatable {
        var uses = 0
        var note = "tag"
    }

    /// A nested tag as the operation gives it.
    enum GivenTag {
        case dictionary(name: String, uses: Int?)
        case array(name: String, uses: Int)
        case managed(name: String)
        case bad(name: String)
    }

    struct Model {
        var owners: [Int: Owner] = [:]
        var tags: [String: Tag] = [:]

        /// Applies one creation; returns the errors the Store may throw, empty when it must succeed
        /// (nothing changes otherwise). When a value is bad and a key is stored, either is the answer:
        /// the Store checks the properties in order.
        mutating func create(
            id: Int, given: [String: Any?], tags nested: [GivenTag], policy: Store.UpdatePolicy, badOwner: Bool
        ) -> [StoreError] {
            var errors: [StoreError] = []
            if badOwner || nested.contains(where: { if case .bad = $0 { true } else { false } }) {
                errors.append(.invalidArgument(""))
            }
            if policy == .error {
                var fresh = Set<String>()
                var duplicate = owners[id] != nil
                for tag in nested {
                    switch tag {
                    case .dictionary(let name, _), .array(let name, _):
                        if tags[name] != nil || !fresh.insert(name).inserted { duplicate = true }
                    default: break
                    }
                }
                if duplicate { errors.append(.alreadyExists(primaryKey: "")) }
            }
            guard errors.isEmpty else { return errors }
            var names: [String] = []
            for tag in nested {
                switch tag {
                case .dictionary(let name, let uses):
                    var stored = tags[name] ?? Tag()
                    if let uses { stored.uses = uses }
                    tags[name] = stored
                    names.append(name)
                case .array(let name, let uses):
                    var stored = tags[name] ?? Tag()
                    stored.uses = uses
                    tags[name] = stored
                    names.append(name)
                case .managed(let name):
                    names.append(name)
                case .bad:
                    break
                }
            }
            var owner = owners[id] ?? Owner()
            var position = 0
            if let name = given["name"] { owner.name = name as! String }
            if let age = given["age"] { owner.age = Int("\(age!)")! }
            if given["tag"] != nil {
                owner.tag = given["tag"]! == nil ? nil : names[position]
                position += given["tag"]! == nil ? 0 : 1
            }
            if given["tags"] != nil { owner.tags = Array(names[position...]) }
            if let spot = given["spot"] { owner.spot = spot.map { ($0 as! [Any])[0] as! Int } }
            owners[id] = owner
            return []
        }
    }

    @Test(arguments: [1, 2, 3])
    func randomCreationsMatchThePlainModel(seed: UInt64) throws {
        var random = SplitMix64(state: seed)
        let fixture = Fixture(MadeTypes.all)
        let store = try fixture.open()
        var model = Model()
        var outcomes: [String: Int] = [:]
        let properties = ["id", "name", "age", "email", "tag", "tags", "spot"]
        for step in 0..<200 {
            let id = Int.random(in: 0..<6, using: &random)
            let policy: Store.UpdatePolicy = [.error, .modified, .all][Int.random(in: 0..<3, using: &random)]
            let badOwner = Int.random(in: 0..<25, using: &random) == 0
            var nested: [GivenTag] = []
            func tagValue() -> (Any, GivenTag) {
                let name = "t\(Int.random(in: 0..<6, using: &random))"
                let uses = Int.random(in: 0..<100, using: &random)
                switch Int.random(in: 0..<10, using: &random) {
                case 0 where model.tags[name] != nil:
                    return (store.object(ofType: MadeTag.self, forPrimaryKey: name)!, .managed(name: name))
                case 1: return (["name": name, "uses": "many"], .bad(name: name))
                case 2...4: return ([name, Int8(uses)] as [Any], .array(name: name, uses: uses))
                case 5: return (["name": name], .dictionary(name: name, uses: nil))
                default: return (["name": name, "uses": UInt32(uses)], .dictionary(name: name, uses: uses))
                }
            }
            // The given properties, as the model reads them (nil: given as nil).
            var given: [String: Any?] = ["id": id]
            if Int.random(in: 0..<2, using: &random) == 0 {
                given["name"] = "n\(Int.random(in: 0..<4, using: &random))"
            }
            if badOwner {
                given["age"] = "old"
            } else if Int.random(in: 0..<2, using: &random) == 0 {
                given["age"] = [Int8(3), Int(40), UInt16(7)][Int.random(in: 0..<3, using: &random)]
            }
            if Int.random(in: 0..<2, using: &random) == 0 {
                if Int.random(in: 0..<3, using: &random) == 0 {
                    given["tag"] = .some(nil)
                } else {
                    let (value, tag) = tagValue()
                    given["tag"] = value
                    nested.append(tag)
                }
            }
            if Int.random(in: 0..<2, using: &random) == 0 {
                var values: [Any] = []
                for _ in 0..<Int.random(in: 0...3, using: &random) {
                    let (value, tag) = tagValue()
                    values.append(value)
                    nested.append(tag)
                }
                given["tags"] = values
            }
            if Int.random(in: 0..<3, using: &random) == 0 {
                given["spot"] =
                    Int.random(in: 0..<2, using: &random) == 0 ? .some(nil) : [Int.random(in: 0..<9, using: &random)]
            }
            // The value handed to create: a dictionary, the first properties as an array, or an
            // unmanaged object (every property given).
            let value: Any
            var modelGiven = given
            switch Int.random(in: 0..<4, using: &random) {
            case 0:
                let count = properties.lastIndex { given[$0] != nil }.map { $0 + 1 } ?? 1
                value = properties.prefix(count).map { name -> Any in
                    if name == "email" { return NSNull() }
                    guard let given = given[name] else {
                        // A property before the last given one: an array gives them all.
                        switch name {
                        case "name":
                            modelGiven["name"] = ""
                            return ""
                        case "age":
                            modelGiven["age"] = 18
                            return 18
                        case "tag":
                            modelGiven["tag"] = .some(nil)
                            return NSNull()
                        case "tags":
                            modelGiven["tags"] = [Any]()
                            return [Any]()
                        default:
                            modelGiven["spot"] = .some(nil)
                            return NSNull()
                        }
                    }
                    return given ?? NSNull()
                }
            case 1 where !badOwner && !nested.contains(where: { if case .bad = $0 { true } else { false } }):
                var dictionary: [String: Any] = [:]
                for (key, item) in given { dictionary[key] = item ?? NSNull() }
                let object = try MadeOwner(value: dictionary)
                value = object
                // A nested unmanaged tag is copied whole: a uses not given is its declared 0.
                nested = nested.map {
                    if case .dictionary(let name, nil) = $0 { .dictionary(name: name, uses: 0) } else { $0 }
                }
                modelGiven["name"] = object.name
                modelGiven["age"] = object.age
                modelGiven["tag"] = given["tag"] ?? .some(nil)
                modelGiven["tags"] = given["tags"] ?? [Any]()
                modelGiven["spot"] = given["spot"] ?? .some(nil)
            default:
                var dictionary: [String: Any] = [:]
                for (key, item) in given { dictionary[key] = item ?? NSNull() }
                value = dictionary
            }
            let expected = model.create(
                id: id, given: modelGiven, tags: nested, policy: policy, badOwner: badOwner)
            try store.write {
                do {
                    try store.create(MadeOwner.self, value: value, update: policy)
                    outcomes["created", default: 0] += 1
                    if !expected.isEmpty { Issue.record("step \(step): expected \(expected), created \(value)") }
                } catch {
                    outcomes["\(error)".prefix(while: { $0 != "(" }).description, default: 0] += 1
                    if !expected.contains(where: { isCase(error, $0) }) {
                        Issue.record("step \(step): \(error), expected \(expected) for \(value)")
                    }
                }
            }
            var owners: [Int: Owner] = [:]
            for owner in store.objects(MadeOwner.self) {
                owners[owner.id] = Owner(
                    name: owner.name, age: owner.age, tag: owner.tag?.name, tags: owner.tags.map(\.name),
                    spot: owner.spot?.x)
            }
            var tags: [String: Tag] = [:]
            for tag in store.objects(MadeTag.self) { tags[tag.name] = Tag(uses: tag.uses, note: tag.note) }
            guard owners == model.owners, tags == model.tags else {
                Issue.record(
                    "step \(step) (\(policy), \(value)):\n\(owners)\n!=\n\(model.owners)\n\(tags)\n!=\n\(model.tags)")
                return
            }
        }
        // Every path ran: creations, updates, and both refusals.
        #expect(outcomes["created", default: 0] > 100, "\(outcomes)")
        #expect(outcomes["invalidArgument", default: 0] > 5 && outcomes["alreadyExists", default: 0] > 5, "\(outcomes)")
        try store.verify()
    }
}
