import Foundation
import Strata
import StrataExamples

/// A project and its notes: the notes link to their project, and the project sees them through an
/// inverse relationship (`LinkingObjects`, which stores no column).
final class Project: Object {
    @Persisted(primaryKey: true) var name: String
    @Persisted(originProperty: "project") var notes: LinkingObjects<ProjectNote>
}

final class ProjectNote: Object {
    @Persisted(primaryKey: true) var id: Int
    @Persisted var text: String
    @Persisted var project: Project?
}

/// Step 5: queries with their plans, a sort, and an inverse link.
func runQueries(_ sync: SyncScenario) throws {
    Transcript.step("5. Queries, their plans, a sort and an inverse link")
    let store = sync.store
    let todos = store.objects(Todo.self)

    let open = todos.where { !$0.done && $0.title.starts(with: "A") }
    Transcript.say("where { !$0.done && $0.title.starts(with: \"A\") } -> \(open.map(\.title))")
    Transcript.say("   plan: \(open.queryPlan)")
    let byKey = todos.where { $0.id.in(["1", "4"]) }
    Transcript.say("where { $0.id.in([\"1\", \"4\"]) } -> \(byKey.map(\.title))")
    Transcript.say("   plan: \(byKey.queryPlan)")
    Transcript.say(
        "sorted(by: \\.title, ascending: false) -> \(todos.sorted(by: \.title, ascending: false).map(\.title))")

    let typed = try todos.where("done == $0 AND title CONTAINS[c] $1 SORT(title ASC) LIMIT(5)", false, "a")
    Transcript.say(
        "where(\"done == $0 AND title CONTAINS[c] $1 SORT(title ASC) LIMIT(5)\", false, \"a\") -> \(typed.map(\.title))"
    )

    let home = Project()
    home.name = "Home"
    try store.write {
        for (id, text) in [(1, "Measure the window"), (2, "Buy paint")] {
            let note = ProjectNote()
            note.id = id
            note.text = text
            note.project = home  // adding the note adds its project too
            try store.add(note, update: .modified)
        }
    }
    Transcript.say(
        "notes link to their project; the project's inverse link finds them: "
            + "\(home.notes.map(\.text)) (\(home.notes.count) notes, no column stored)")
    // A grouped list as a table view shows it: notes in sections by project, and what one write
    // changes in them.
    let sections = store.objects(ProjectNote.self).sectioned(sortDescriptors: [SortKey(\.id)]) {
        $0.project?.name ?? "(no project)"
    }
    var table: [String] = []
    let token = try sections.observe { change in
        switch change {
        case .initial(let sections):
            table.append("initial: " + sections.map { "\($0.key) (\($0.count))" }.joined(separator: ", "))
        case .update(let sections, let deletions, let insertions, let modifications, let newSections, let goneSections):
            table.append(
                "update: sections inserted \(Array(newSections)), deleted \(Array(goneSections)); rows deleted "
                    + "\(deletions.map { Array($0) }), inserted \(insertions.map { Array($0) }), modified "
                    + "\(modifications.map { Array($0) }); now "
                    + sections.map { "\($0.key) (\($0.count))" }.joined(separator: ", "))
        case .error(let error): table.append("error: \(error)")
        }
    }
    try store.write { store.object(ofType: ProjectNote.self, forPrimaryKey: 2)?.project = nil }
    Transcript.say("after one note leaves the project, the inverse link is live: \(home.notes.map(\.text))")
    try store.refresh()
    token.invalidate()
    for line in table { Transcript.say("notes sectioned by project, \(line)") }
}
