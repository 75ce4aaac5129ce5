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

/// Unique constraints on properties that are not the primary key.
public final class Account: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted(unique: true) public var email: String
    @Persisted(unique: true) public var handle: String?
    @Persisted(unique: true) public var code: Decimal128

    public convenience init(id: Int, email: String, handle: String? = nil, code: Decimal128 = 0) {
        self.init()
        self.id = id
        self.email = email
        self.handle = handle
        self.code = code == 0 ? Decimal128(id) : code
    }
}

/// An app type stored as a Decimal128.
public struct Money: CustomPersistable, Equatable, CustomStringConvertible {
    public var amount: Decimal128
    public init(persistedValue: Decimal128) { amount = persistedValue }
    public var persistableValue: Decimal128 { amount }
    public var description: String { "$\(amount)" }
}

/// An app type whose stored form may be refused: an address needs an "@".
public struct EmailAddress: FailableCustomPersistable, Equatable {
    public let text: String
    public init?(persistedValue: String) {
        guard persistedValue.contains("@") else { return nil }
        text = persistedValue
    }
    public var persistableValue: String { text }
    public static var persistedSamples: [String] { ["a@example.com", "b@example.com", "c@example.com"] }
}

/// Custom types in every place a value can be.
public final class Invoice: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var total: Money
    @Persisted public var discount: Money?
    @Persisted public var lines: List<Money>
    @Persisted public var byName: Map<String, Money>
    @Persisted public var contact = EmailAddress(persistedValue: "billing@example.com")!
    @Persisted public var copies: MutableSet<EmailAddress>
}

/// Owning links: deleting an order deletes the lines no other order owns.
public final class Order: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted(owning: true) public var lines: List<OrderLine>
    @Persisted(owning: true) public var note: OrderLine?
    @Persisted public var featured: OrderLine?

    public convenience init(id: Int) {
        self.init()
        self.id = id
    }
}

public final class OrderLine: Object {
    @Persisted public var text: String
    @Persisted(owning: true) public var parts: MutableSet<OrderLine>
    @Persisted(owning: true) public var byKind: Map<String, OrderLine?>

    public convenience init(_ text: String) {
        self.init()
        self.text = text
    }
}

/// Embedded objects: owned by one object, deleted with it.
public final class Address: EmbeddedObject {
    @Persisted public var street: String
    @Persisted public var city: String
    @Persisted public var position: Position?

    public convenience init(_ city: String, street: String = "") {
        self.init()
        self.city = city
        self.street = street
    }
}

public final class Position: EmbeddedObject {
    @Persisted public var latitude: Double
    @Persisted public var longitude: Double
}

public final class Resident: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var address: Address?
    @Persisted public var previous: List<Address>
    @Persisted public var byLabel: Map<String, Address?>

    public convenience init(id: Int) {
        self.init()
        self.id = id
    }
}

/// Mixed values in every place.
public final class Setting: Object {
    @Persisted(primaryKey: true) public var name: String
    @Persisted public var value: AnyValue
    @Persisted public var history: List<AnyValue>
    @Persisted public var extras: Map<String, AnyValue>
    @Persisted public var distinct: MutableSet<AnyValue>

    public convenience init(_ name: String, _ value: AnyValue) {
        self.init()
        self.name = name
        self.value = value
    }
}
