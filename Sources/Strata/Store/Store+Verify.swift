/// `verify()`: walks every table of the schema and checks what reads would otherwise trap on.
extension Store {
    /// Walks every table, row and index of the schema: every row decodes, every primary key matches
    /// its row, every index holds exactly one entry per row, every link names an existing object and
    /// has its backlink (deleting an object clears the links to it).
    ///
    /// ```swift
    /// do { try store.verify() } catch .corrupted(let damage) { print(damage) }
    /// ```
    /// - Throws: `.corrupted` naming the type, key and damage of the first problem; `.wrongThread`,
    ///   `.storage`.
    public func verify() throws(StoreError) {
        try core.checkConfined()
        let environment = core.environment
        // before LMDB walks those pages
        if !environment.isInMemory { _ = try StoreError.mapping { try environment.checkPages() } }
        try Verifier(types: core.bindings.map(VerifiedType.init)).run(on: core)
    }
}
