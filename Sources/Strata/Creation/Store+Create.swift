extension Store {
    /// Creates an object of `type` from `value` and returns it managed, as Realm's `create` does.
    /// `value` is a `[String: Any]` by property name, an `[Any]` in the order the properties are
    /// declared, or another object (unmanaged, of this Store or of another: its values are copied).
    /// Properties not given keep their declared values.
    ///
    /// ```swift
    /// try store.write {
    ///     let ann = try store.create(Person.self, value: ["id": 1, "name": "Ann", "dogs": [["name": "Rex"]]])
    ///     try store.create(Person.self, value: ["id": 1, "age": 31], update: .modified)  // Ann, now 31
    /// }
    /// ```
    /// Nested values become objects of the linked types, created with the same policy; a nested
    /// object this Store manages is linked as it is. With `.modified` or `.all` and a stored primary
    /// key, only the properties given are set on the stored object (`.modified`: those that differ).
    /// Numbers convert between widths when they fit, and between Float and Double; `NSNull` is nil
    /// (an empty collection for a List, MutableSet or Map).
    ///
    /// Every value is converted and checked before anything is written: a bad value throws and
    /// writes nothing. A failure once writing has begun (a unique property's value another object
    /// holds, a full map) keeps the write transaction from committing: cancel it.
    ///
    /// - Throws: `.notInWriteTransaction`, `.wrongThread`, `.schemaMismatch` (a type not in the
    ///   schema), `.invalidArgument` (a value of the wrong kind or type, naming the property; an
    ///   EmbeddedObject type, which is created through its owner), `.alreadyExists` (`.error` and the
    ///   primary key is stored or given twice; a unique property), `.invalidated` /
    ///   `.deletedInAnotherThread` (a nested object was deleted), `.mapFull`, `.storage`.
    @discardableResult
    public func create<T: Object>(_ type: T.Type, value: Any = [String: Any](), update: UpdatePolicy = .error)
        throws(StoreError) -> T
    {
        try core.create(type, value: value, update: update)
    }
}

extension Object {
    /// An unmanaged object made from `value`, as Realm's `Object(value:)`: a `[String: Any]` by
    /// property name, an `[Any]` in the order the properties are declared, or another object whose
    /// values are copied. Properties not given keep their declared values; nested dictionaries and
    /// arrays become new unmanaged objects, and a nested object is linked as it is.
    ///
    /// ```swift
    /// let ann = try Person(value: ["id": 1, "name": "Ann", "dogs": [["name": "Rex"]]])
    /// let bob = try Person(value: [2, "Bob"])
    /// ```
    /// - Throws: `.invalidArgument` for a value of the wrong kind or type (naming the property);
    ///   `.wrongThread`, `.invalidated` reading a managed object given as the value.
    public convenience init(value: Any) throws(StoreError) {
        self.init()
        var creation = ObjectCreation(core: nil, policy: .error)
        let plan = try creation.plan(type(of: self), value: value, into: self)
        _ = try creation.make(plan)
    }
}

extension StoreCore {
    func create<T: Object>(_ type: T.Type, value: Any, update policy: Store.UpdatePolicy) throws(StoreError) -> T {
        let session = try writableSession()
        let binding = try binding(for: type)
        if binding.schema.isEmbedded {
            throw .invalidArgument(
                "\(binding.name) is an EmbeddedObject: it is created through its owner's property")
        }
        var creation = ObjectCreation(core: self, policy: policy)
        let plan = try creation.plan(binding.schema.type, value: value)
        do {
            return try creation.make(plan) as! T
        } catch {
            if creation.writes > 0 { session.poison(error) }
            throw error
        }
    }
}
