import Foundation
import Strata

/// A contact card with the rest of Realm's model: an ObjectId key, a Map, a MutableSet, an embedded
/// address, a mixed value, a Decimal128 balance.
final class ContactCard: Object {
    @Persisted(primaryKey: true) var id = ObjectId.generate()
    @Persisted(unique: true) var email: String
    @Persisted var phones: Map<String, String>
    @Persisted var tags: MutableSet<String>
    @Persisted var address: PostalAddress?
    @Persisted var preference: AnyValue
    @Persisted var balance: Decimal128
}

final class PostalAddress: EmbeddedObject {
    @Persisted var city: String
}

/// Step 9: Realm's model types, stored, queried and observed.
func runModel(_ store: Store) throws {
    Transcript.step("9. Realm's model: a Map, a MutableSet, an embedded object, a mixed value")
    let card = ContactCard()
    card.email = "ann@example.com"
    card.phones["home"] = "555-0100"
    card.tags.insert(objectsIn: ["friend", "vip", "friend"])
    card.address = PostalAddress()
    card.address?.city = "Oslo"
    card.preference = .map(["theme": .string("dark"), "fontSize": .int(14)])
    card.balance = "19.99"
    try store.write { try store.add(card) }
    Transcript.say("id \(card.id) (made \(card.id.timestamp.formatted(.iso8601)))")
    Transcript.say("phones \(card.phones.map { "\($0.key)=\($0.value)" }), tags \(Array(card.tags)) (one \"friend\")")

    var keyChanges: [String] = []
    let token = try card.phones.observe { change in
        if case .update(_, let deletions, let insertions, let modifications) = change {
            keyChanges.append("deleted \(deletions), inserted \(insertions), modified \(modifications)")
        }
    }
    try store.write {
        card.phones["work"] = "555-0199"
        card.phones["home"] = "555-0111"
        card.balance += Decimal128("0.01")
        card.address = PostalAddress()  // the Oslo address is deleted with the replacement
        card.address?.city = "Bergen"
    }
    try Transcript.wait(for: "the map's notification") { !keyChanges.isEmpty }
    token.invalidate()
    Transcript.say("the Map's notification names keys: \(keyChanges[0])")
    Transcript.say(
        "balance 19.99 + 0.01 = \(card.balance) (exact); addresses stored: \(store.objects(PostalAddress.self).count), in \(card.address?.city ?? "-")"
    )
    let vips = store.objects(ContactCard.self).where {
        $0.tags.contains("vip") && $0.phones["work"] != nil && $0.address.city == "Bergen"
    }
    let dark = store.objects(ContactCard.self).where { $0.preference.type == .map }
    Transcript.say(
        "where { tags.contains(\"vip\") && phones[\"work\"] != nil && address.city == \"Bergen\" } -> \(vips.count)")
    Transcript.say("where { preference.type == .map } -> \(dark.count)")
    do {
        let twin = ContactCard()
        twin.email = "ann@example.com"
        try store.write { try store.add(twin) }
    } catch {
        Transcript.say("a second card with the same email -> \(error)")
    }
}
