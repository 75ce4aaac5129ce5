@_spi(StrataReactive) import Strata

extension Reactive where Base: Object {
    /// Adds the object (and the unmanaged objects it links to) to `store`.
    ///
    /// ```swift
    /// person.reactive.add(to: store, update: .modified, on: .background)
    ///     .startWithResult { result in … }   // on main; `person` is managed by `store` by then
    /// ```
    /// Sends one value, then completes. On `.background` the object is written by the background
    /// queue's Store and becomes managed by `store` on the main thread, before the value arrives.
    ///
    /// - Throws (as `.failed`): `.wrongThread` (not started on the main thread with the main
    ///   thread's Store), `.alreadyExists` (policy `.error` and the key is stored: nothing is
    ///   written), `.deletedInAnotherThread` (the object or a linked one was deleted by another
    ///   thread, queue, actor or process: before the start, or on `.background` before the
    ///   background queue ran the write), `.invalidated` (main's own Store deleted it), `.schemaMismatch`,
    ///   `.invalidArgument`, `.mapFull`, `.storage`.
    /// - Warning: On `.background`, leave the object (and what it links to) alone until the producer
    ///   terminates: the background queue reads it.
    public func add(to store: Store, update: Store.UpdatePolicy = .error, on context: ReactiveContext = .main)
        -> SignalProducer<Void, StoreError>
    {
        [base].reactive.add(to: store, update: update, on: context)
    }

    /// Changes the object in a write: `block` receives the object (on `.background`, the background
    /// Store's copy of it) inside the write transaction.
    ///
    /// ```swift
    /// person.reactive.update(in: store, on: .background) { $0.name = "Ann" }
    /// ```
    /// - Throws (as `.failed`): `.wrongThread`, `.notManaged` (an unmanaged object),
    ///   `.deletedInAnotherThread` (deleted by another thread, queue, actor or process: before the
    ///   start, or on `.background` before the background queue ran the write), `.invalidated`
    ///   (main's own Store deleted it), `.invalidArgument` (an object of
    ///   another file's Store), `.mapFull`, `.storage`.
    /// - Warning: On `.background`, `block` runs on the background queue.
    public func update(
        in store: Store, on context: ReactiveContext = .main, _ block: @escaping @Sendable (Base) -> Void
    ) -> SignalProducer<Void, StoreError> {
        [base].reactive.update(in: store, on: context, block)
    }

    /// Deletes the object.
    ///
    /// - Throws (as `.failed`): `.wrongThread`, `.notManaged`, `.deletedInAnotherThread` (deleted by
    ///   another thread, queue, actor or process), `.invalidated` (main's own Store deleted it),
    ///   `.invalidArgument`, `.storage`.
    public func remove(from store: Store, on context: ReactiveContext = .main) -> SignalProducer<Void, StoreError> {
        [base].reactive.remove(from: store, on: context)
    }
}

extension Reactive {
    /// Adds every object, or none: as `Reactive<Object>.add(to:update:on:)`, for all of them in one
    /// write.
    public func add<T: Object>(
        to store: Store, update: Store.UpdatePolicy = .error, on context: ReactiveContext = .main
    )
        -> SignalProducer<Void, StoreError> where Base == [T]
    {
        let objects: [Object] = base
        return ReactiveWrite.producer(
            store: store, context: context,
            onMain: { (store) throws(StoreError) in try store.add(contentsOf: objects, update: update) },
            prepare: { () throws(StoreError) in objects },
            inBackground: { (background, objects) throws(StoreError) in
                try background._addWithoutManaging(objects, update: update)
            },
            adopt: { (store, stored) throws(StoreError) in try store._manage(stored) })
    }

    /// Changes every object in one write (none if any is gone).
    public func update<T: Object>(
        in store: Store, on context: ReactiveContext = .main, _ block: @escaping @Sendable (T) -> Void
    ) -> SignalProducer<Void, StoreError> where Base == [T] {
        let objects = base
        return ReactiveWrite.producer(
            store: store, context: context,
            onMain: { (store) throws(StoreError) in
                for object in objects { try store._checkManages(object) }
                for object in objects { block(object) }
            },
            prepare: { () throws(StoreError) in try references(to: objects, in: store) },
            inBackground: { (background, references) throws(StoreError) in
                for object in try resolve(references, in: background) { block(object) }
            },
            adopt: { _, _ in })
    }

    /// Deletes every object in one write (none if any is gone).
    public func remove<T: Object>(from store: Store, on context: ReactiveContext = .main)
        -> SignalProducer<Void, StoreError> where Base == [T]
    {
        let objects = base
        return ReactiveWrite.producer(
            store: store, context: context,
            onMain: { (store) throws(StoreError) in
                for object in objects { try store._checkManages(object) }
                try store.delete(objects)
            },
            prepare: { () throws(StoreError) in try references(to: objects, in: store) },
            inBackground: { (background, references) throws(StoreError) in
                try background.delete(try resolve(references, in: background))
            },
            adopt: { _, _ in })
    }
}

/// References to objects `store` manages, made on its thread.
private func references<T: Object>(to objects: [T], in store: Store) throws(StoreError) -> [ThreadSafeReference<T>] {
    var references: [ThreadSafeReference<T>] = []
    for object in objects {
        try store._checkManages(object)
        references.append(try ThreadSafeReference(to: object))
    }
    return references
}

/// The objects the references name, in `store`; `.deletedInAnotherThread` if any is gone.
private func resolve<T: Object>(_ references: [ThreadSafeReference<T>], in store: Store) throws(StoreError) -> [T] {
    var objects: [T] = []
    for reference in references {
        guard let object = try store.resolve(reference) else { throw .deletedInAnotherThread }
        objects.append(object)
    }
    return objects
}
