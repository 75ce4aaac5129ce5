extension Store {
    /// An immutable snapshot of the Store at its current version, usable from any thread (pass it,
    /// and objects and Results of it, freely). It never moves, and cannot write (`.readOnly`).
    ///
    /// ```swift
    /// let frozen = try store.freeze()
    /// DispatchQueue.global().async { print(frozen.objects(Person.self).count) }
    /// ```
    /// - Throws: `.wrongThread`, `.storage` (for example `.readersFull`).
    /// - Warning: A frozen snapshot pins its version: the file cannot reuse the pages later commits
    ///   free until every frozen object of it is gone. `diagnostics()` shows who pins what.
    public func freeze() throws(StoreError) -> Store {
        Store(core: try core.frozen())
    }

    /// Whether this is a frozen snapshot.
    public var isFrozen: Bool { core.isFrozen }

    /// A live Store of the same configuration on the current thread.
    ///
    /// - Throws: what `Store(configuration:)` throws.
    public func thaw() throws(StoreError) -> Store {
        try Store(configuration: core.configuration)
    }
}

extension ThreadConfined where Self: Object {
    /// The object in a frozen snapshot of its Store: immutable, readable from any thread.
    ///
    /// - Throws: `.notManaged`, `.invalidated` (this Store deleted it, or was invalidated),
    ///   `.deletedInAnotherThread` (deleted by another thread, queue, actor or process, even in a commit
    ///   this Store has yet to see: the snapshot shows the newest commit), `.wrongThread`, `.storage`.
    public func freeze() throws(StoreError) -> Self {
        guard let core = _core else { throw .notManaged }
        if core.isFrozen { return self }
        try core.checkConfined()
        _ = try core.currentRow(of: self)
        let frozen = try core.frozen()
        guard let object = try frozen.object(Self.self, key: _key) else { throw .deletedInAnotherThread }
        return object
    }

    /// The live object in the current thread's Store of the same configuration; nil when it has
    /// been deleted since. A live object returns itself.
    ///
    /// - Throws: `.notManaged`, and what `Store(configuration:)` throws.
    public func thaw() throws(StoreError) -> Self? {
        guard let core = _core else { throw .notManaged }
        guard core.isFrozen else { return self }
        let live = try Store(configuration: core.configuration)
        return try live.core.object(Self.self, key: _key)
    }
}

extension Object {
    /// Whether the object belongs to a frozen snapshot.
    public final var isFrozen: Bool { _core?.isFrozen ?? false }
}

extension Results {
    /// The Results in a frozen snapshot of its Store: same query, immutable, readable from any thread.
    ///
    /// - Throws: `.wrongThread`, `.invalidArgument` with a `filter` closure (it could capture
    ///   anything confined), `.storage`.
    public func freeze() throws(StoreError) -> Results {
        if core.isFrozen { return self }
        for stage in stages {
            if case .filter = stage { throw .invalidArgument("a Results with a filter closure cannot be frozen") }
        }
        let frozen = try core.frozen()
        let results = Results(core: frozen, binding: try frozen.binding(for: Element.self), stages: stages)
        _ = results.keys()  // evaluated once now, then only read by every thread
        return results
    }

    /// Whether the Results belongs to a frozen snapshot.
    public var isFrozen: Bool { core.isFrozen }

    /// The same query on the current thread's live Store of the same configuration.
    ///
    /// - Throws: what `Store(configuration:)` throws.
    public func thaw() throws(StoreError) -> Results {
        guard core.isFrozen else { return self }
        let live = try Store(configuration: core.configuration)
        return Results(core: live.core, binding: try live.core.binding(for: Element.self), stages: stages)
    }
}
