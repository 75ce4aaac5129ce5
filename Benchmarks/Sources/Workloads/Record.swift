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

/// The benchmark record in GRDB: `(id INTEGER PRIMARY KEY, score REAL, name TEXT)`.
public struct GRDBItem: Codable, FetchableRecord, PersistableRecord, Sendable {
    public static let databaseTableName = "item"
    public var id: Int64
    public var score: Double
    public var name: String
}

/// The name every record carries: 40 bytes of UTF-8, shared (no system pays for making strings).
public let itemName = "item-name-0123456789-abcdefghij-ABCDEFGHI"
