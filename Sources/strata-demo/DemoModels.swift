import Foundation
import Strata

/// A type the demo's stores do not list: asking for it is a `.schemaMismatch`.
final class Unlisted: Object {
    @Persisted var note: String
}

/// The next version of the app's `Todo` (stored under the same name, with one more property): opening
/// the file with it and the same schema version is a `.migrationRequired`.
enum NextVersion {
    final class Todo: Object {
        @Persisted(primaryKey: true) var id: String
        @Persisted var title: String
        @Persisted var done: Bool
        @Persisted var dueDate: Date?
    }
}
