/// What a managed object asks of the Store that manages it, seen from the model layer. `StoreCore`
/// is the one subclass: it overrides every method here. The state a property read checks on each
/// access (thread, generation) is stored in this class, so the fast path makes no call.
///
/// - Warning: Confined like its Store: used on the Store's thread or queue only (a frozen one from any).
@usableFromInline
class ObjectContext {
    @usableFromInline let confinement: Confinement
    /// Changes whenever stored bytes may have moved: a new snapshot, or any change inside a write.
    /// Objects cache their row for one generation.
    @exclusivity(unchecked) @usableFromInline final var generation: UInt64 = 1
    /// Changes on `invalidate()`: objects fetched before are invalidated.
    @exclusivity(unchecked) final var epoch: UInt64 = 1
    /// The open file: two objects are the same stored object when their files, types and keys are.
    let fileIdentity: ObjectIdentifier

    init(confinement: Confinement, fileIdentity: ObjectIdentifier) {
        self.confinement = confinement
        self.fileIdentity = fileIdentity
    }

    final var isConfined: Bool { confinement.isCurrent }

    /// Traps unless called on the Store's thread or queue (for APIs that cannot throw).
    @usableFromInline @inline(__always)
    final func assertConfined() {
        if !confinement.isCurrent { preconditionFailure(TrapMessage.wrongThread) }
    }

    // MARK: Overridden by StoreCore

    /// The current row of a managed object (cached on the object for the current generation).
    ///
    /// - Throws: `.invalidated` (this Store deleted it, or was invalidated), `.deletedInAnotherThread`
    ///   (another Store or process deleted it), `.corrupted`.
    func currentRow(of object: Object) throws(StoreError) -> RowView {
        preconditionFailure(Self.subclassOnly)
    }

    /// A column of a managed object's row, for property getters: traps instead of throwing.
    func columnBytes(of object: Object, column: Int) -> UnsafeRawBufferPointer? {
        preconditionFailure(Self.subclassOnly)
    }

    /// Changes one column of a managed object's row, for property setters: traps instead of throwing.
    /// `linkedObjects` gives the objects the new value links to (asked for link columns only).
    func setColumn(
        of object: Object, column: Int, linkedObjects: () -> [Object],
        encode: (inout _RowEncoder) throws(StoreError) -> Void
    ) {
        preconditionFailure(Self.subclassOnly)
    }

    /// The object a stored link (its key bytes) points to, or nil when it no longer exists.
    ///
    /// - Throws: `.corrupted` when the bytes cannot be a key of `type`.
    func linkedObject<T: Object>(_ type: T.Type, keyBytes: UnsafeRawBufferPointer) throws(StoreError) -> T? {
        preconditionFailure(Self.subclassOnly)
    }

    /// The object of the type named `typeName` whose stored key is `keyBytes` (an `AnyValue` link),
    /// or nil when it no longer exists or the type is not in the schema.
    func linkedObject(typeNamed typeName: String, keyBytes: UnsafeRawBufferPointer) throws(StoreError) -> Object? {
        preconditionFailure(Self.subclassOnly)
    }

    /// The object of `type` under `key`, or nil when it no longer exists.
    func object<T: Object>(_ type: T.Type, key: RowKey) throws(StoreError) -> T? {
        preconditionFailure(Self.subclassOnly)
    }

    /// The keys of the objects of `origin` whose `property` links to the object under `key`; nil
    /// when `property` is not a link of `origin`.
    func backlinks(to key: RowKey, from origin: Object.Type, through property: String) throws(StoreError) -> [RowKey]? {
        preconditionFailure(Self.subclassOnly)
    }

    /// Tells Observation of the commits that change `object`'s row from now on (its type is
    /// observable and a read of it may be tracked). A frozen Store never changes: it ignores this.
    func observeCommits(of object: Object) {
        preconditionFailure(Self.subclassOnly)
    }

    private static let subclassOnly = "Strata: ObjectContext is implemented by StoreCore"
}

@available(*, unavailable, message: "an ObjectContext is confined to its Store's thread or queue")
extension ObjectContext: Sendable {}
