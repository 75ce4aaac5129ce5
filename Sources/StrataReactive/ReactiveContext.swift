import Dispatch
import Foundation
@_spi(StrataReactive) import Strata

/// Where a reactive write runs.
///
/// Both are for code on the main thread with the main thread's Store: start the producer there.
public enum ReactiveContext: Sendable {
    /// Synchronously inside `start()`, on the main thread (started anywhere else, the producer fails
    /// with `.wrongThread`).
    case main
    /// On a background serial queue, in a Store opened there with the same configuration. Managed
    /// objects cross by `ThreadSafeReference`; the value (or failure) is delivered on the main thread
    /// once the main thread's Store has moved to the write, so its objects, Results and observers
    /// show it when the value arrives.
    case background
}

/// Runs reactive writes in their context: the shared machinery of `add`, `update` and `remove`.
enum ReactiveWrite {
    /// The serial queue background writes run on (one at a time, in the order they were started).
    static let backgroundQueue = Store._serialQueue(label: "strata.reactive.background", qos: .userInitiated)

    /// A producer of one write.
    ///
    /// - `onMain` runs inside a write transaction of `store` (context `.main`).
    /// - `prepare` runs on the main thread at start (context `.background`) and makes what crosses
    ///   to the background queue; `inBackground` runs there inside a write transaction of that
    ///   queue's Store; `adopt` runs on the main thread with its outcome after `store` has refreshed.
    ///
    /// Disposing before the background work commits cancels the write.
    static func producer<Handoff, Outcome>(
        store: Store, context: ReactiveContext,
        onMain: @escaping (Store) throws(StoreError) -> Void,
        prepare: @escaping () throws(StoreError) -> Handoff,
        inBackground: @escaping (Store, Handoff) throws(StoreError) -> Outcome,
        adopt: @escaping (Store, Outcome) throws(StoreError) -> Void
    ) -> SignalProducer<Void, StoreError> {
        SignalProducer { observer, lifetime in
            do throws(StoreError) {
                guard Thread.isMainThread else { throw .wrongThread }
                try store._checkConfined()
                switch context {
                case .main:
                    try inWrite(of: store) { () throws(StoreError) in try onMain(store) }
                    observer.send(value: ())
                    observer.sendCompleted()
                case .background:
                    let handoff = Handover(try prepare())
                    let work = Handover(
                        BackgroundWork(store: store, observer: observer, inBackground: inBackground, adopt: adopt))
                    let configuration = store.configuration
                    backgroundQueue.async {
                        work.value.run(configuration: configuration, handoff: handoff.value, lifetime: lifetime)
                    }
                }
            } catch {
                observer.send(error: error)
            }
        }
    }

    /// Runs `body` in a write transaction of `store` and commits it; on failure nothing is written.
    /// `shouldCommit` is asked last: false cancels the write (the producer was disposed).
    static func inWrite<Result>(
        of store: Store, shouldCommit: () -> Bool = { true }, _ body: () throws(StoreError) -> Result
    ) throws(StoreError) -> Result? {
        try store.beginWrite()
        do throws(StoreError) {
            let result = try body()
            guard shouldCommit() else {
                try store.cancelWrite()
                return nil
            }
            try store.commitWrite()
            return result
        } catch {
            if store.isInWriteTransaction { try? store.cancelWrite() }
            throw error
        }
    }
}

/// What a background write carries to the background queue and back to the main thread.
private struct BackgroundWork<Handoff, Outcome> {
    let store: Store
    let observer: Signal<Void, StoreError>.Observer
    let inBackground: (Store, Handoff) throws(StoreError) -> Outcome
    let adopt: (Store, Outcome) throws(StoreError) -> Void

    /// On the background queue: writes, then hands the outcome to the main thread.
    func run(configuration: Store.Configuration, handoff: Handoff, lifetime: Lifetime) {
        guard !lifetime.hasEnded else { return }  // disposed before it ran: nothing is written
        let outcome: Result<Outcome?, StoreError>
        do throws(StoreError) {
            let background = try Store(configuration: configuration, queue: ReactiveWrite.backgroundQueue)
            outcome = .success(
                try ReactiveWrite.inWrite(of: background, shouldCommit: { !lifetime.hasEnded }) {
                    () throws(StoreError) in
                    try inBackground(background, handoff)
                })
        } catch {
            outcome = .failure(error)
        }
        if case .success(nil) = outcome { return }  // disposed during the write: cancelled
        let delivery = Handover((self, outcome))
        DispatchQueue.main.async { delivery.value.0.deliver(delivery.value.1) }
    }

    /// On the main thread: the Store moves to the write (telling its observers), adopts what the
    /// write made, and only then the producer sends its value.
    private func deliver(_ outcome: Result<Outcome?, StoreError>) {
        do throws(StoreError) {
            let written = try outcome.get()
            try store.refresh()
            if let written { try adopt(store, written) }
            observer.send(value: ())
            observer.sendCompleted()
        } catch {
            observer.send(error: error)
        }
    }
}

/// Carries a value to another queue. `@unchecked Sendable`: used only for what the reactive writes
/// hand over, each touched by one thread at a time (main, then the background queue, then main).
struct Handover<Value>: @unchecked Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
