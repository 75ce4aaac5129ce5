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
