@_spi(StrataReactive) import Strata

extension Reactive where Base: _ObservableResults {
    /// The Results' changes: `.initial` synchronously when started, then one `.update` per delivered
    /// change (as `Results.observe` delivers them: on the Store's queue, main for a Store of the main
    /// thread). Disposing interrupts it and stops the observation.
    ///
    /// ```swift
    /// let disposable = adults.reactive.changes.startWithResult { result in
    ///     if case .success(.update(let results, let deletions, let insertions, let modifications)) = result { … }
    /// }
    /// ```
    /// - Throws (as `.failed`): `.wrongThread` (started off the Store's thread), `.invalidArgument` (a
    ///   frozen Results), and an observation's `.error` (`.corrupted`).
    public var changes: SignalProducer<CollectionChange<Results<Base.Element>>, StoreError> {
        changes(keyPaths: [])
    }

    /// `changes`, counting as modifications only changes of the properties at `keyPaths`.
    public func changes(keyPaths: [PartialKeyPath<Base.Element>])
        -> SignalProducer<CollectionChange<Results<Base.Element>>, StoreError>
    {
        let results = base._results
        return SignalProducer { observer, lifetime in
            do throws(StoreError) {
                let token = try results._observeStartingNow(keyPaths: keyPaths) { change in
                    if case .error(let error) = change {
                        observer.send(error: error)
                    } else {
                        observer.send(value: change)
                    }
                }
                lifetime.observeEnded { token.invalidate() }
            } catch {
                observer.send(error: error)
            }
        }
    }
}

/// Implementation detail of `Reactive.changes`: a Results, seen through its element type.
public protocol _ObservableResults {
    associatedtype Element: Object
    var _results: Results<Element> { get }
}

extension Results: _ObservableResults {
    public var _results: Results<Element> { self }
}
