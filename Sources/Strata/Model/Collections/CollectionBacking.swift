/// Where a `List`'s, `MutableSet`'s or `Map`'s contents live: in the collection while its owner is
/// unmanaged (an array, a dictionary), in a column of the owner's row once a Store manages the owner.
/// The three collections read and change their contents through it (`BackedCollection`); each says
/// only how its column is encoded and decoded. Its members are inlined into the collections' own
/// (generic) methods, where the enum's layout is known: called out of line, each use would look up
/// the metadata of `CollectionBacking<Contents>` at run time (~340 instructions).
enum CollectionBacking<Contents> {
    case unmanaged(Contents)
    case managed(owner: Object, column: Int)

    @inline(__always) var isManaged: Bool {
        if case .managed = self { return true }
        return false
    }

    /// The managed collection's owner; nil while unmanaged.
    var owner: Object? {
        if case .managed(let owner, _) = self { return owner }
        return nil
    }

    /// Whether the owner was deleted (or its Store invalidated): a managed collection can no longer
    /// be read. Never for an unmanaged one.
    @inline(__always) var isInvalidated: Bool {
        if case .managed(let owner, _) = self { return owner.isInvalidated }
        return false
    }

    /// What `unmanaged` makes of the collection's own contents, or what `managed` decodes from the
    /// owner's column (the Store's current snapshot). A damaged column traps, naming the object and
    /// the property, as a property read does.
    @inline(__always)
    func read<T>(
        unmanaged: (Contents) -> T,
        managed decode: (UnsafeRawBufferPointer?, _DecodeContext) throws(StoreError) -> T
    ) -> T {
        switch self {
        case .unmanaged(let contents):
            return unmanaged(contents)
        case .managed(let owner, let column):
            do {
                return try decode(owner._collectionColumnBytes(column), _DecodeContext(owner: owner, column: column))
            } catch {
                owner._trapCorrupted(column: column, error)
            }
        }
    }
}

/// A collection stored in its owner's row: what it keeps while unmanaged, and how a managed one's
/// column is encoded, decoded and walked for links.
protocol BackedCollection: AnyObject {
    associatedtype Contents
    var backing: CollectionBacking<Contents> { get set }
    static var emptyContents: Contents { get }
    /// A managed collection's contents, decoded from its owner's column.
    static func decodeContents(_ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext) throws(StoreError)
        -> Contents
    /// Writes `contents` as the owner's column.
    static func encodeContents(_ contents: Contents, into row: inout _RowEncoder) throws(StoreError)
    /// The objects `contents` link to (an unmanaged one among them is added to the Store).
    static func linkedObjects(in contents: Contents) -> [Object]
}

extension BackedCollection {
    /// The contents: the collection's own while unmanaged, else decoded from the owner's row.
    @inline(__always) var contents: Contents {
        backing.read(unmanaged: { $0 }, managed: Self.decodeContents)
    }

    /// Changes the contents: an unmanaged collection's in place; a managed one's are decoded, changed
    /// and written back to the owner's row once (which needs a write transaction, as a setter does).
    /// No access to `backing` is held while `change` runs or the row is written, so either may read
    /// this collection.
    @inline(__always)
    func modify<R>(_ change: (inout Contents) throws -> R) rethrows -> R {
        switch backing {
        case .unmanaged(var contents):
            backing = .unmanaged(Self.emptyContents)  // keep the contents uniquely referenced while they change
            // Not a `defer`: its body would be a function of its own, generic, out of line.
            do {
                let result = try change(&contents)
                backing = .unmanaged(contents)
                return result
            } catch {
                backing = .unmanaged(contents)
                throw error
            }
        case .managed(let owner, let column):
            var contents = self.contents
            let result = try change(&contents)
            owner._writeColumn(
                column, linkedObjects: { Self.linkedObjects(in: contents) },
                encode: { (row: inout _RowEncoder) throws(StoreError) in try Self.encodeContents(contents, into: &row) }
            )
            return result
        }
    }
}
