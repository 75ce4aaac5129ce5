/// A frozen Store, object or Results as a `Sendable` value: what crosses from one task, actor or
/// `StorePool` block to another, with no `@unchecked Sendable` in your code.
///
/// ```swift
/// let books = try await pool.read { store in try Frozen(store.objects(Book.self)) }
/// for book in books.value { print(book.title) }        // on any thread, in any task
/// Task.detached { print(books.value.count) }
/// ```
/// Making one freezes the value (a frozen one is kept as it is): it shows the version of the file it
/// was frozen at and never changes. `thaw()` on `value` gives back a live one on the current thread.
///
/// - Warning: A frozen version pins its pages until every frozen value of it is gone (the file cannot
///   reuse them): keep it no longer than you read it. `Store.diagnostics()` shows what pins.
public struct Frozen<Value>: @unchecked Sendable {  // `value` is frozen: immutable, readable from any thread
    /// The frozen value, readable from any thread at once.
    public let value: Value

    private init(frozen value: Value) {
        self.value = value
    }
}

extension Frozen where Value == Store {
    /// A frozen snapshot of `store` (`store` itself when it is frozen).
    ///
    /// - Throws: what `Store.freeze()` throws (`.wrongThread`, `.storage`).
    public init(_ store: Store) throws(StoreError) {
        self.init(frozen: store.isFrozen ? store : try store.freeze())
    }
}

extension Frozen where Value: Object {
    /// `object` in a frozen snapshot of its Store (`object` itself when it is frozen).
    ///
    /// - Throws: what `Object.freeze()` throws: `.notManaged` for an object that was never added,
    ///   `.invalidated`, `.deletedInAnotherThread`, `.wrongThread`, `.storage`.
    public init(_ object: Value) throws(StoreError) {
        self.init(frozen: try object.freeze())
    }
}

extension Frozen {
    /// `results` in a frozen snapshot of its Store, evaluated once now (`results` itself when it is
    /// frozen).
    ///
    /// - Throws: what `Results.freeze()` throws: `.invalidArgument` for a Results with a `filter`
    ///   closure (it could capture anything confined), `.wrongThread`, `.storage`.
    public init<Element: Object>(_ results: Results<Element>) throws(StoreError) where Value == Results<Element> {
        self.init(frozen: try results.freeze())
    }
}
