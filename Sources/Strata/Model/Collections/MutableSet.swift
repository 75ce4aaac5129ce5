/// A set of values or objects, stored in its owner's row (Realm's `MutableSet`).
///
/// ```swift
/// final class Contact: Object {
///     @Persisted var tags: MutableSet<String>
///     @Persisted var friends: MutableSet<Contact>
/// }
/// try store.write {
///     contact.tags.insert("work")
///     contact.tags.formUnion(["vip", "work"])      // still one "work"
/// }
/// contact.tags.contains("vip")                     // true
/// ```
/// A managed set keeps its elements sorted (numbers as numbers, strings and data by their bytes, nil
/// first, objects by their primary key), so its indices, `[i]` and the indices of its change
/// notifications, are the same for every reader. An unmanaged set keeps insertion order. Equal
/// values are one member (`1.50` and `1.5` for Decimal128); objects are the same member when they are
/// the same stored object.
///
/// - Warning: A managed set is confined to its Store's thread, and changing it outside a write
///   transaction traps, like setting a property.
public final class MutableSet<Element: _SetElement>: RandomAccessCollection {
    var backing: CollectionBacking<[Element]>

    /// An empty, unmanaged set.
    public init() {
        backing = .unmanaged([])
    }

    /// An unmanaged set of `elements` (repeated ones once).
    public init(_ elements: some Sequence<Element>) {
        backing = .unmanaged([])
        insert(objectsIn: elements)
    }

    init(owner: Object, column: Int) {
        backing = .managed(owner: owner, column: column)
    }

    /// Whether the set belongs to a managed object.
    public var isManaged: Bool { backing.isManaged }

    /// Whether the set's owner was deleted (or its Store invalidated).
    public var isInvalidated: Bool { backing.isInvalidated }

    /// The current elements (for a managed set, read from the owner's row, in the set's order).
    public var elements: [Element] { contents }

    // MARK: Collection

    /// Always 0.
    public var startIndex: Int { 0 }
    /// Equal to `count`.
    public var endIndex: Int { count }
    /// The number of elements (a link to a deleted object is not counted).
    public var count: Int { elements.count }

    /// The element at `position`, in the set's order.
    public subscript(position: Int) -> Element { elements[position] }

    /// Iterates over the elements the set held when the iteration began.
    public func makeIterator() -> IndexingIterator<[Element]> {
        elements.makeIterator()
    }

    /// Whether `element` is a member.
    public func contains(_ element: Element) -> Bool {
        elements.contains { Element._strataSameElement($0, element) }
    }

    /// Whether every element is also in `other`.
    public func isSubset(of other: some Sequence<Element>) -> Bool {
        let others = Array(other)
        return elements.allSatisfy { element in others.contains { Element._strataSameElement($0, element) } }
    }

    /// Whether the set and `other` share an element.
    public func intersects(_ other: some Sequence<Element>) -> Bool {
        let members = elements
        return other.contains { element in members.contains { Element._strataSameElement($0, element) } }
    }

    // MARK: Changing

    /// Adds `element` unless it is a member. An unmanaged object is added to the Store.
    public func insert(_ element: Element) {
        insert(objectsIn: [element])
    }

    /// Adds each element that is not a member yet (one rewrite of a managed set's row).
    public func insert(objectsIn elements: some Sequence<Element>) {
        modify { members in
            for element in elements where !members.contains(where: { Element._strataSameElement($0, element) }) {
                members.append(element)
            }
        }
    }

    /// Removes `element` if it is a member (an object stays in the Store).
    public func remove(_ element: Element) {
        modify { $0.removeAll { Element._strataSameElement($0, element) } }
    }

    /// Removes every element (objects stay in the Store).
    public func removeAll() {
        modify { $0.removeAll() }
    }

    /// Adds the elements of `other`.
    public func formUnion(_ other: some Sequence<Element>) {
        insert(objectsIn: other)
    }

    /// Keeps only the elements that are also in `other`.
    public func formIntersection(_ other: some Sequence<Element>) {
        let others = Array(other)
        modify { members in members.removeAll { member in !others.contains { Element._strataSameElement($0, member) } }
        }
    }

    /// Removes the elements that are in `other`.
    public func subtract(_ other: some Sequence<Element>) {
        let others = Array(other)
        modify { members in members.removeAll { member in others.contains { Element._strataSameElement($0, member) } } }
    }

    // MARK: Encoding

    /// Encodes the elements as a set: sorted by `SetOrder`, each member once.
    static func encode(_ elements: [Element], into row: inout _RowEncoder) throws(StoreError) {
        var scratch = _RowEncoder()
        scratch.beginRow(columns: 1)
        try List<Element>.encode(elements, into: &scratch)
        let type = Element._strataElementType.type
        try scratch.withRow { (bytes) throws(StoreError) in
            do throws(RowDamage) {
                guard let list = try RowView(encoded: bytes, columns: 1).column(0) else { return }
                let sorted = try SetOrder.sortedUnique(try ListFormat.elements(list), type: type)
                row.writeListHeader(count: sorted.count)
                for element in sorted {
                    if let element { row.writeElement(element) } else { row.writeNullElement() }
                }
                row.endColumn()
            } catch {
                throw .invalidArgument("MutableSet<\(Element.self)>: \(error)")
            }
        }
    }
}

extension MutableSet: _Persistable {
    public static var _strataSchemaType: _SchemaType {
        let element = Element._strataElementType
        return _SchemaType(.set(element.type), linkedType: element.linkedType)
    }

    public static func _strataZero() -> MutableSet { MutableSet() }

    /// A new, empty set, which the key path must return unchanged.
    public static func _strataProbe(_ round: Int) -> MutableSet { KeyPathRecordings.issue(MutableSet()) }

    public static func _strataIsProbe(_ value: MutableSet, _ round: Int) -> Bool { KeyPathRecordings.wasIssued(value) }

    public func _strataEncodeColumn(into row: inout _RowEncoder) throws(StoreError) {
        try Self.encode(elements, into: &row)
    }

    /// A managed set bound to its owner's column, or (validating bytes alone) an unmanaged copy.
    public static func _strataDecodeColumn(
        _ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext
    ) throws(StoreError) -> MutableSet {
        if let owner = context.owner { return MutableSet(owner: owner, column: context.column) }
        return MutableSet(try List<Element>.decode(bytes, in: context))
    }
}

extension MutableSet: AnyList, BackedCollection {
    var linkedObjects: [Object] { Self.linkedObjects(in: elements) }

    static var emptyContents: [Element] { [] }

    static func decodeContents(_ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext) throws(StoreError)
        -> [Element]
    {
        try List<Element>.decode(bytes, in: context)
    }

    /// Sorted by `SetOrder`, each member once.
    static func encodeContents(_ contents: [Element], into row: inout _RowEncoder) throws(StoreError) {
        try encode(contents, into: &row)
    }

    static func linkedObjects(in contents: [Element]) -> [Object] {
        List<Element>.linkedObjects(in: contents)
    }
}

@available(*, unavailable, message: "a MutableSet is confined to its Store's thread")
extension MutableSet: Sendable {}

extension MutableSet where Element: _QueryNumeric {
    /// The sum of the elements (0 for an empty set).
    public func sum() -> Element {
        elements.reduce(.zero, +)
    }

    /// The mean of the elements, or nil for an empty set.
    public func average() -> Double? {
        let elements = elements
        guard !elements.isEmpty else { return nil }
        return elements.reduce(0.0) { $0 + $1._queryDouble } / Double(elements.count)
    }
}
