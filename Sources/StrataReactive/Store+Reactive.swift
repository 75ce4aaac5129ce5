@_spi(StrataReactive) import Strata

extension Reactive where Base == Store {
    /// The object with that primary key (or nil), read when started: one value, then completed.
    ///
    /// ```swift
    /// store.reactive.object(ofType: Person.self, forPrimaryKey: 1).startWithResult { print($0) }
    /// ```
    /// - Throws (as `.failed`): `.wrongThread` (started off the Store's thread), `.schemaMismatch` (a
    ///   type outside the schema), `.invalidArgument` (a type without primary key), `.corrupted`,
    ///   `.storage`. A key of another type than the primary key's finds nothing (nil).
    public func object<T: Object, K: _PrimaryKeyValue>(ofType type: T.Type, forPrimaryKey key: K)
        -> SignalProducer<T?, StoreError>
    {
        let store = base
        return .reading { () throws(StoreError) in try store._object(ofType: type, forPrimaryKey: key) }
    }

    /// Every object of a type, as a live Results: one value, then completed. Follow its changes with
    /// `results.reactive.changes`.
    ///
    /// - Throws (as `.failed`): `.wrongThread` (started off the Store's thread), `.schemaMismatch`.
    public func objects<T: Object>(_ type: T.Type) -> SignalProducer<Results<T>, StoreError> {
        let store = base
        return .reading { () throws(StoreError) in try store._objects(type) }
    }
}

extension SignalProducer where Error == StoreError {
    /// A producer that runs `read` when started: its value then completed, or its error.
    fileprivate static func reading(_ read: @escaping () throws(StoreError) -> Value) -> SignalProducer {
        SignalProducer { observer, _ in
            do throws(StoreError) {
                observer.send(value: try read())
                observer.sendCompleted()
            } catch {
                observer.send(error: error)
            }
        }
    }
}
