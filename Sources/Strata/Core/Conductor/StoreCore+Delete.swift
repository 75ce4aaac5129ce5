/// Deleting rows: checks every object first, then deletes each row with its index entries.
extension StoreCore {
    private struct Target: Hashable {
        let table: Int
        let key: RowKey
    }

    /// - Throws: `.wrongThread`, `.notInWriteTransaction`, `.notManaged` (an unmanaged object),
    ///   `.invalidated` (this Store deleted it already, or was invalidated), `.deletedInAnotherThread`
    ///   (another Store or process deleted it), `.invalidArgument` (an object of another file),
    ///   `.storage`. Nothing is deleted when a check fails.
    func delete(_ objects: some Sequence<Object>) throws(StoreError) {
        let session = try writableSession()
        var targets: [(key: RowKey, binding: TableBinding)] = []
        var seen = Set<Target>()
        for object in objects {
            guard object._core != nil else { throw .notManaged }
            guard try isManagedHere(object), let binding = object._tableBinding else { throw .invalidated }
            if seen.insert(Target(table: binding.ordinal, key: object._key)).inserted {
                targets.append((object._key, binding))
            }
        }
        for (key, binding) in targets {
            _ = try deleteRow(key: key, binding: binding, session: session)
        }
    }

    /// Deletes the rows of `keys` (from a Results); keys already gone are skipped.
    func delete(keys: [RowKey], binding: TableBinding) throws(StoreError) {
        let session = try writableSession()
        for key in keys {
            _ = try deleteRow(key: key, binding: binding, session: session)
        }
    }

    /// Deletes every object of every type in the schema.
    func deleteAll() throws(StoreError) {
        let session = try writableSession()
        iterations.detach()
        for binding in bindings {
            if session.changeLog != nil {
                for (key, _) in try rows.allRows(binding) { session.changeLog![binding.ordinal].noteDeleted(key) }
            }
            try session.drop(binding.table)
            ownDeletions.noteWiped(table: binding.ordinal)
            for index in binding.indexes {
                try session.drop(index.table)
            }
            for link in binding.links {
                try session.drop(link.table)
            }
            noteChange(structural: binding)
        }
        session.forgetLastKeys()
    }
}
