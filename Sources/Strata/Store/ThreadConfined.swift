/// A type whose instances are confined to their Store's thread and can be handed to another thread
/// with a `ThreadSafeReference`: `Object` subclasses, `Results` and `List`.
public protocol ThreadConfined {
    /// Implementation detail: what identifies the instance in its file.
    func _handoff() throws(StoreError) -> _Handoff
    /// Implementation detail: the instance `handoff` names, in `store`; nil when it is gone.
    static func _resolve(_ handoff: _Handoff, in store: Store) throws(StoreError) -> Self?
}
