import Foundation
import Strata

/// A synced type of the sync tests: a primary key, values of several kinds, a link.
public final class SyncItem: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var title: String
    @Persisted public var count: Int
    @Persisted public var note: String?
    @Persisted public var owner: SyncOwner?

    public convenience init(id: Int, title: String = "", count: Int = 0, note: String? = nil) {
        self.init()
        self.id = id
        self.title = title
        self.count = count
        self.note = note
    }
}

/// The target of `SyncItem.owner`, keyed by a string.
public final class SyncOwner: Object {
    @Persisted(primaryKey: true) public var name: String
    @Persisted public var joined: Date
    @Persisted public var tags: List<String>

    public convenience init(name: String, joined: Date = Date(timeIntervalSince1970: 0)) {
        self.init()
        self.name = name
        self.joined = joined
    }
}

/// A synced type with a property of every kind a typed server column takes, keyed by a UUID.
public final class SyncKinds: Object {
    @Persisted(primaryKey: true) public var id: UUID
    @Persisted public var flag: Bool
    @Persisted public var big: UInt64
    @Persisted public var ratio: Double
    @Persisted public var blob: Data
    @Persisted public var at: Date
    @Persisted public var amount: Decimal
    @Persisted public var numbers: List<Int>
    @Persisted public var small: Int8?
    @Persisted public var label: String?
}

/// A synced type with the rest of Realm's model: an ObjectId key, a Decimal128, a Map and sets.
public final class SyncModelKinds: Object {
    @Persisted(primaryKey: true) public var id: ObjectId
    @Persisted public var balance: Decimal128
    @Persisted public var phones: Map<String, String>
    @Persisted public var scores: Map<String, Int?>
    @Persisted public var tags: MutableSet<String>
    @Persisted public var dates: MutableSet<Date>
    @Persisted public var friend: SyncModelKinds?
    @Persisted public var extra: AnyValue
}

/// A synced type owning embedded objects: they travel inside its row (jsonb on the server).
public final class SyncPlace: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var name: String
    @Persisted public var address: SyncAddress?
    @Persisted public var stops: List<SyncAddress>
    @Persisted public var byLabel: Map<String, SyncAddress?>

    public convenience init(id: Int, name: String) {
        self.init()
        self.id = id
        self.name = name
    }
}

public final class SyncAddress: EmbeddedObject {
    @Persisted public var street: String
    @Persisted public var city: String
    @Persisted public var point: SyncPoint?

    public convenience init(_ city: String, street: String = "") {
        self.init()
        self.city = city
        self.street = street
    }
}

public final class SyncPoint: EmbeddedObject {
    @Persisted public var latitude: Double
    @Persisted public var longitude: Double
    /// A link to a keyed type from inside an embedded object: sent as the target's key.
    @Persisted public var owner: SyncItem?
}

/// A todo that only its owner and the members of its list's team may see (access-rule tests:
/// `SyncAccess(SharedTodo.self, owner: "ownerID", team: "teamID")`).
public final class SharedTodo: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var title: String
    @Persisted public var ownerID: String
    @Persisted public var teamID: String?

    public convenience init(id: Int, title: String, ownerID: String, teamID: String? = nil) {
        self.init()
        self.id = id
        self.title = title
        self.ownerID = ownerID
        self.teamID = teamID
    }
}

/// A synced type with a full-text index and a vector index: a pull keeps both indexes (SearchSyncTests).
public final class SyncArticle: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted(indexed: .fullText) public var body: String
    @Persisted(indexed: .vector(dimensions: 4, metric: .euclidean)) public var embedding: [Float]
}
