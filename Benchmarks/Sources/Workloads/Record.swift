import Foundation
import GRDB
import Strata

/// The benchmark record in Strata.
public final class Item: Object {
    @Persisted(primaryKey: true) public var id: Int
    @Persisted public var score: Double
    @Persisted public var name: String

    public convenience init(id: Int, score: Double, name: String) {
        self.init()
        self.id = id
        self.score = score
        self.name = name
    }
}

/// R3's record: what a Realm user declares (a `UUID()` key, a String, a Date, a List), read one
/// property at a time. Reading one must not evaluate `UUID()` nor make an empty List.
public final class RichItem: Object {
    @Persisted(primaryKey: true) public var id = UUID()
    @Persisted public var name: String
    @Persisted public var createdAt = Date()
    @Persisted public var tags: List<String>
}

/// The benchmark record in GRDB: `(id INTEGER PRIMARY KEY, score REAL, name TEXT)`.
public struct GRDBItem: Codable, FetchableRecord, PersistableRecord, Sendable {
    public static let databaseTableName = "item"
    public var id: Int64
    public var score: Double
    public var name: String
}

/// The name every record carries: 40 bytes of UTF-8, shared (no system pays for making strings).
public let itemName = "item-name-0123456789-abcdefghij-ABCDEFGHI"
