import Foundation
import Strata

/// ObjectId and Decimal128 in every place a value can be: key, index, optional, List.
public final class Ledger: Object {
    @Persisted(primaryKey: true) public var id = ObjectId.generate()
    @Persisted(indexed: true) public var amount: Decimal128
    @Persisted public var plainAmount: Decimal128
    @Persisted public var fee: Decimal128?
    @Persisted(indexed: true) public var reference: ObjectId?
    @Persisted public var history: List<Decimal128>
    @Persisted public var related: List<ObjectId>
    @Persisted public var label: String

    public convenience init(amount: Decimal128, label: String = "") {
        self.init()
        self.amount = amount
        plainAmount = amount
        self.label = label
    }
}

/// Maps and sets of values, optionals and links.
public final class Contact: Object {
    @Persisted(primaryKey: true) public var id = ObjectId.generate()
    @Persisted public var name: String
    @Persisted public var phones: Map<String, String>
    @Persisted public var scores: Map<String, Int?>
    @Persisted public var amounts: Map<String, Decimal128>
    @Persisted public var pets: Map<String, Dog?>
    @Persisted public var tags: MutableSet<String>
    @Persisted public var lucky: MutableSet<Int>
    @Persisted public var maybe: MutableSet<Int?>
    @Persisted public var prices: MutableSet<Decimal128>
    @Persisted public var friends: MutableSet<Contact>

    public convenience init(name: String) {
        self.init()
        self.name = name
    }
}
