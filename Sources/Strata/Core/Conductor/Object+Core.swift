extension Object {
    /// The core of the Store managing this object: `StoreCore` is the one kind of `ObjectContext`.
    var _core: StoreCore? {
        _store.map { unsafeDowncast($0, to: StoreCore.self) }
    }
}
