/// An ordered list of values or objects, stored in its owner's row.
///
/// ```swift
/// final class Person: Object {
///     @Persisted var dogs: List<Dog>
///     @Persisted var nicknames: List<String>
/// }
/// try store.write {
///     person.dogs.append(rex)              // an unmanaged Dog is added to the store
///     person.nicknames.insert("Al", at: 0)
/// }
/// ```
/// An unmanaged list is a plain array. A managed list is live: it reads its owner's row on every
/// access, and every change rewrites that row (so changes need a write transaction). Both are
/// `RangeReplaceableCollection`s (`removeLast()`, `removeFirst(_:)`, `insert(contentsOf:at:)`,
/// `replaceSubrange(_:with:)`, `removeAll(where:)`…) with the same meaning; each such call on a
/// managed list rewrites the row once.
///
/// - Warning: A managed list is confined to its Store's thread, and changing it outside a write
///   transaction traps, like setting a property.
public final class List<Element: _ListElement>: RandomAccessCollection, MutableCollection, RangeReplaceableCollection {
    var backing: CollectionBacking<[Element]>

    /// An empty, unmanaged list.
    public init() {
        backing = .unmanaged([])
    }

    /// An unmanaged list of `elements`.
    public init(_ elements: some Sequence<Element>) {
        backing = .unmanaged(Array(elements))
    }

    init(owner: Object, column: Int) {
        backing = .managed(owner: owner, column: column)
    }

    /// Whether the list belongs to a managed object.
    public var isManaged: Bool { backing.isManaged }

    /// Whether the list's owner was deleted (or its Store invalidated): a managed list can no longer
    /// be read.
    public var isInvalidated: Bool { backing.isInvalidated }

    /// The current elements (for a managed list, read from the owner's row).
    public var elements: [Element] { contents }

    // MARK: Collection

    /// Always 0.
    public var startIndex: Int { 0 }
    /// Equal to `count`.
    public var endIndex: Int { count }
    /// The number of elements (a link to a deleted object is not counted).
    public var count: Int { elements.count }

    /// The element at `position`; setting it needs a write transaction when the list is managed.
    public subscript(position: Int) -> Element {
        get { elements[position] }
        set { modify { $0[position] = newValue } }
    }

    /// Iterates over the elements the list held when the iteration began.
    public func makeIterator() -> IndexingIterator<[Element]> {
        elements.makeIterator()
    }

    // MARK: Changing

    /// Appends an element. An unmanaged object appended to a managed list is added to the Store.
    public func append(_ element: Element) {
        modify { $0.append(element) }
    }

    /// Appends every element of `elements`.
    public func append(contentsOf elements: some Sequence<Element>) {
        modify { $0.append(contentsOf: elements) }
    }

    /// Realm's spelling of `append(contentsOf:)`.
    public func append(objectsIn elements: some Sequence<Element>) {
        append(contentsOf: elements)
    }

    /// Inserts an element so that it ends up at `index`.
    public func insert(_ element: Element, at index: Int) {
        modify { $0.insert(element, at: index) }
    }

    /// Removes and returns the element at `index` (an object stays in the Store).
    @discardableResult
    public func remove(at index: Int) -> Element {
        modify { $0.remove(at: index) }
    }

    /// Removes every element (objects stay in the Store).
    public func removeAll(keepingCapacity keepCapacity: Bool = false) {
        modify { $0.removeAll() }
    }

    /// Replaces the elements in `subrange` with `newElements` (the `RangeReplaceableCollection`
    /// primitive: every other change can be made of it). An unmanaged object put in a managed list is
    /// added to the Store.
    public func replaceSubrange<C: Collection>(_ subrange: Range<Int>, with newElements: C) where C.Element == Element {
        modify { $0.replaceSubrange(subrange, with: newElements) }
    }

    // The collection's own changes, declared on the class so that they work on any reference to the
    // list (a `let`, a property), not only on a `var` as `RangeReplaceableCollection`'s mutating ones.

    /// Inserts `newElements` so that the first of them ends up at `index`.
    public func insert<C: Collection>(contentsOf newElements: C, at index: Int) where C.Element == Element {
        modify { $0.insert(contentsOf: newElements, at: index) }
    }

    /// Removes the elements in `bounds`.
    public func removeSubrange(_ bounds: Range<Int>) {
        modify { $0.removeSubrange(bounds) }
    }

    /// Removes the elements in `bounds` (`0..<2`, `...3`, `2...`).
    public func removeSubrange(_ bounds: some RangeExpression<Int>) {
        modify { $0.removeSubrange(bounds) }
    }

    /// Removes and returns the first element (the list must not be empty).
    @discardableResult
    public func removeFirst() -> Element {
        modify { $0.removeFirst() }
    }

    /// Removes the first `count` elements.
    public func removeFirst(_ count: Int) {
        modify { $0.removeFirst(count) }
    }

    /// Removes and returns the last element (the list must not be empty).
    @discardableResult
    public func removeLast() -> Element {
        modify { $0.removeLast() }
    }

    /// Removes the last `count` elements.
    public func removeLast(_ count: Int) {
        modify { $0.removeLast(count) }
    }

    /// Removes and returns the last element, or nil when the list is empty.
    public func popLast() -> Element? {
        modify { $0.popLast() }
    }

    /// Removes the elements that satisfy `shouldBeRemoved`, keeping the others' order (one rewrite of
    /// a managed list's row).
    public func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        try modify { try $0.removeAll(where: shouldBeRemoved) }
    }

    /// Exchanges two elements (one rewrite of a managed list's row).
    public func swapAt(_ i: Int, _ j: Int) {
        modify { $0.swapAt(i, j) }
    }

    /// Reverses the elements in place (one rewrite of a managed list's row).
    public func reverse() {
        modify { $0.reverse() }
    }

    /// Sorts the elements in place (one rewrite of a managed list's row).
    public func sort(by areInIncreasingOrder: (Element, Element) throws -> Bool) rethrows {
        try modify { try $0.sort(by: areInIncreasingOrder) }
    }

    /// Moves the element at `from` so that it ends up at index `to`.
    public func move(from: Int, to: Int) {
        modify { elements in
            let element = elements.remove(at: from)
            elements.insert(element, at: to)
        }
    }

    /// Replaces the element at `index`.
    public func replace(index: Int, with element: Element) {
        self[index] = element
    }

    // MARK: Encoding

    static func encode(_ elements: [Element], into row: inout _RowEncoder) throws(StoreError) {
        row.writeListHeader(count: elements.count)
        for element in elements {
            try element._strataEncodeElement(into: &row)
        }
        row.endColumn()
    }

    static func decode(_ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext) throws(StoreError) -> [Element] {
        guard let bytes else { throw .corrupted("a List column is null") }
        let parts: [UnsafeRawBufferPointer?]
        do {
            parts = try ListFormat.elements(bytes)
        } catch {
            throw .corrupted("List<\(Element.self)>: \(error)")
        }
        var elements: [Element] = []
        elements.reserveCapacity(parts.count)
        for part in parts {
            if let element = try Element._strataDecodeElement(part, in: context) { elements.append(element) }
        }
        return elements
    }
}

extension List: _Persistable {
    public static var _strataSchemaType: _SchemaType {
        let element = Element._strataElementType
        return _SchemaType(.list(element.type), linkedType: element.linkedType)
    }

    public static func _strataZero() -> List { List() }

    /// A new, empty list, which the key path must return unchanged.
    public static func _strataProbe(_ round: Int) -> List { KeyPathRecordings.issue(List()) }

    public static func _strataIsProbe(_ value: List, _ round: Int) -> Bool { KeyPathRecordings.wasIssued(value) }

    public func _strataEncodeColumn(into row: inout _RowEncoder) throws(StoreError) {
        try Self.encode(elements, into: &row)
    }

    /// A managed list bound to its owner's column, or (validating bytes alone) an unmanaged copy.
    public static func _strataDecodeColumn(
        _ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext
    ) throws(StoreError) -> List {
        if let owner = context.owner { return List(owner: owner, column: context.column) }
        return List(try decode(bytes, in: context))
    }
}

/// Lists seen without their element type (walking links).
protocol AnyList {
    var linkedObjects: [Object] { get }
}

/// Maps seen without their value type: the objects their values link to, by key (what an update
/// pairs with the stored embedded objects of the same keys).
protocol AnyMapOfLinks {
    var linkedObjectsByKey: [(key: String, object: Object)] { get }
}

extension List: AnyList, BackedCollection {
    var linkedObjects: [Object] { Self.linkedObjects(in: elements) }

    static var emptyContents: [Element] { [] }

    static func decodeContents(_ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext) throws(StoreError)
        -> [Element]
    {
        try decode(bytes, in: context)
    }

    static func encodeContents(_ contents: [Element], into row: inout _RowEncoder) throws(StoreError) {
        try encode(contents, into: &row)
    }

    static func linkedObjects(in contents: [Element]) -> [Object] {
        contents.flatMap { Object._linkedObjects(in: $0) }
    }
}

extension List where Element: Object {
    /// The position of `object` in the list (the same stored object: `==`), or nil.
    public func index(of object: Element) -> Int? {
        firstIndex { $0 == object }
    }
}

extension List where Element: Comparable {
    /// Sorts the elements in ascending order (one rewrite of a managed list's row).
    public func sort() {
        sort(by: <)
    }
}

@available(*, unavailable, message: "a List is confined to its Store's thread")
extension List: Sendable {}
