import Dispatch

/// What StrataReactive needs beyond the public API: checks that throw where the public calls trap,
/// an add whose objects are managed later on another thread's Store, and an observation whose
/// initial value arrives synchronously. Not for applications: `@_spi(StrataReactive)`.
extension Store {
    /// A serial queue whose kind Stores know, so that the first Store opened on it does not probe it
    /// (`Store(configuration:queue:)` otherwise waits 50 ms once per queue to learn it is serial).
    @_spi(StrataReactive)
    public static func _serialQueue(label: String, qos: DispatchQoS) -> DispatchQueue {
        DispatchQueues.makeSerial(label: label, qos: qos)
    }

    /// - Throws: `.wrongThread` off the Store's thread or queue.
    @_spi(StrataReactive)
    public func _checkConfined() throws(StoreError) {
        try core.checkConfined()
    }

    /// Checks that this Store manages `object` and that it still exists.
    ///
    /// - Throws: `.notManaged`, `.wrongThread` (another thread's Store of this file manages it, or this
    ///   is not the Store's thread), `.invalidArgument` (a Store of another file does),
    ///   `.invalidated` (this Store deleted it), `.deletedInAnotherThread` (another Store did).
    @_spi(StrataReactive)
    public func _checkManages(_ object: Object) throws(StoreError) {
        try core.checkConfined()
        guard try core.isManagedHere(object) else { throw .notManaged }
    }

    /// Adds the objects (all or none), as `add(contentsOf:update:)` does, but leaves them unmanaged, so
    /// that the Store of another thread can manage them with `_manage(_:)` once it sees the commit.
    /// Objects that Stores of other threads manage may be linked to: they are found by key in this write.
    ///
    /// - Throws: as `add(contentsOf:update:)`; `.deletedInAnotherThread` for a linked object that this
    ///   write cannot find.
    @_spi(StrataReactive)
    public func _addWithoutManaging(_ objects: [Object], update: UpdatePolicy) throws(StoreError) -> _StoredObjects {
        let session = try core.writableSession()
        let operation = AddOperation(core: core, session: session, policy: update, linksAcrossThreads: true)
        return _StoredObjects(entries: try operation.store(objects).map { ($0.object, $0.key) })
    }

    /// Makes this Store manage objects stored by `_addWithoutManaging(_:update:)` on another thread
    /// (call it once this Store sees that commit).
    ///
    /// - Throws: `.wrongThread`, `.schemaMismatch` for a type not in this Store's schema.
    @_spi(StrataReactive)
    public func _manage(_ stored: _StoredObjects) throws(StoreError) {
        try core.checkConfined()
        for (object, key) in stored.entries where object._core == nil {
            core.manage(object, binding: try core.binding(for: type(of: object)), key: key)
        }
    }

    /// `objects(_:)`, throwing where it traps.
    ///
    /// - Throws: `.wrongThread`, `.schemaMismatch` for a type not in the schema.
    @_spi(StrataReactive)
    public func _objects<T: Object>(_ type: T.Type) throws(StoreError) -> Results<T> {
        try checkedObjects(type)
    }

    /// `object(ofType:forPrimaryKey:)`, throwing where it traps.
    ///
    /// - Throws: `.wrongThread`, `.schemaMismatch` (a type not in the schema), `.invalidArgument` (a
    ///   type without primary key), `.corrupted`, `.storage`.
    @_spi(StrataReactive)
    public func _object<T: Object, K: _PrimaryKeyValue>(ofType type: T.Type, forPrimaryKey key: K) throws(StoreError)
        -> T?
    {
        try checkedObject(ofType: type, forPrimaryKey: key)
    }
}

/// Objects stored by `Store._addWithoutManaging`, with their keys, on their way to the Store that
/// will manage them.
///
/// `@unchecked Sendable`: the objects were unmanaged when stored and stay so until `_manage` runs on
/// the receiving Store's thread; nothing reads them in between.
@_spi(StrataReactive)
public struct _StoredObjects: @unchecked Sendable {
    let entries: [(object: Object, key: RowKey)]
}
