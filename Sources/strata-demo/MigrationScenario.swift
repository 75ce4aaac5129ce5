import Foundation
import Strata
import StrataExamples

/// Step 7: the next app version adds `Todo.dueDate`. A copy of the file is migrated to schema version
/// 1, its block giving every open todo a due date; the live file stays at version 0.
func runMigration(_ store: Store, directory: URL) throws {
    Transcript.step("7. A migration to the next app version, on a copy of the file")
    let copy = directory.appendingPathComponent("next-version.strata")
    try store.writeCopy(to: copy, compact: true)
    var next = Store.Configuration(fileURL: copy, objectTypes: [NextVersion.Todo.self])
    next.schemaVersion = 1
    let due = Date(timeIntervalSince1970: 1_800_000_000)
    next.migration = { migration, oldVersion in
        try migration.enumerateObjects(ofType: "Todo") { old, new in
            if old?["done"] as? Bool == false { new?["dueDate"] = due }
        }
    }
    let migrated = try Store(configuration: next)
    let open = migrated.objects(NextVersion.Todo.self).where { $0.dueDate != nil }.sorted(by: \.title)
    Transcript.say("migrated from version 0 to 1: \(open.count) open todos got a due date: \(open.map(\.title))")
    Transcript.say(
        "the live file stays at version 0 and still opens with this version's Todo: "
            + "\(store.objects(Todo.self).count) todos")
}
