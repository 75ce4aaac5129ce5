/// Descriptions of objects and their collections, for logs, `print` and the demo: they read a type's
/// properties through its schema. They never throw or trap: what cannot be read shows as
/// `<invalidated>` or `<damaged>` (every `try?` here), and reads and `verify()` report it.

/// How collections describe themselves: the first elements, then how many more.
enum Describing {
    static let elementLimit = 3

    /// How many elements a List, MutableSet or Map shows.
    static let collectionLimit = 10

    static func list(_ shown: [String], total: Int) -> String {
        let more = total > shown.count ? ", … \(total - shown.count) more" : ""
        return "[" + shown.joined(separator: ", ") + more + "]"
    }

    /// One element of a collection: an object by its type and primary key, a string quoted, an
    /// optional by what it holds (or nil).
    static func element(_ element: Any) -> String {
        switch element {
        case let object as Object: return "\(type(of: object))(\(object.primaryKeyDescription))"
        case let string as String: return "\"\(string)\""
        default:
            let mirror = Mirror(reflecting: element)
            guard mirror.displayStyle == .optional else { return "\(element)" }
            return mirror.children.first.map { Self.element($0.value) } ?? "nil"
        }
    }

    /// One entry of a map: its key quoted, then its value as an element.
    /// (Not generic: a reference to a generic function captures its type's metatype, which Swift 6
    /// warns of in a collection's description.)
    static func entry(_ key: String, _ value: Any) -> String {
        "\"\(key)\": " + element(value)
    }

    /// `name (count): [first elements]`, or why the collection cannot be read here.
    static func collection<Elements: Collection>(
        _ name: String, of owner: Object?, _ elements: () -> Elements, _ describe: (Elements.Element) -> String
    ) -> String {
        if let reason = unreadable(owner: owner) { return "\(name) (\(reason))" }
        let all = elements()
        return "\(name) (\(all.count)): " + list(all.prefix(collectionLimit).map(describe), total: all.count)
    }

    /// What a collection of `owner` shows instead of its contents, when it cannot read them here
    /// (another thread, a deleted owner), or nil.
    static func unreadable(owner: Object?) -> String? {
        guard let owner else { return nil }
        if let core = owner._store, !core.isConfined { return "on another thread" }
        return owner.isInvalidated ? "invalidated" : nil
    }
}

extension Object: CustomStringConvertible {
    /// `Person { id = 1; name = "Ann" }`, for logs and the demo.
    public var description: String {
        guard let schema = try? ObjectSchema.of(type(of: self)) else { return "\(type(of: self))" }
        let values = schema.properties.indices.map { index -> String in
            "\(schema.properties[index].name) = \(describeProperty(index, schema: schema))"
        }
        return "\(schema.name) { \(values.joined(separator: "; ")) }"
    }

    private func describeProperty(_ index: Int, schema: ObjectSchema) -> String {
        let accessor = schema.accessors[index]
        let value: Any?
        if let core = _store, let binding = _binding {
            guard core.isConfined else { return "<other thread>" }
            guard let row = try? core.currentRow(of: self) else { return "<invalidated>" }
            let column = binding.columnOfProperty[index]
            guard let bytes = try? row.column(column) else { return "<damaged>" }
            value = try? accessor.kind.decodeForDescription(bytes, in: _DecodeContext(owner: self, column: column))
        } else {
            value = accessor.unmanagedValue(of: self)
        }
        switch value {
        case let collection as DescribableCollection:
            return "[\(collection.elementDescriptions.joined(separator: ", "))]"
        case let value?: return Describing.element(value)
        case nil: return "nil"
        }
    }

    var primaryKeyDescription: String {
        if let binding = _binding { return binding.describe(_key) }
        guard let schema = try? ObjectSchema.of(type(of: self)), let index = schema.primaryKeyIndex else {
            return "unmanaged"
        }
        let accessor = schema.accessors[index]
        return "\(accessor.unmanagedValue(of: self))"
    }
}

extension List: CustomStringConvertible {
    /// `List<String> (2): ["a", "b"]`: the element type, the count and the first elements.
    public var description: String {
        Describing.collection("List<\(Element.self)>", of: backing.owner, { elements }, Describing.element)
    }
}

extension MutableSet: CustomStringConvertible {
    /// `MutableSet<Int> (2): [1, 7]`: the element type, the count and the first elements, in the
    /// set's order.
    public var description: String {
        Describing.collection("MutableSet<\(Element.self)>", of: backing.owner, { elements }, Describing.element)
    }
}

extension Map: CustomStringConvertible {
    /// `Map<String, Int> (2): ["a": 1, "b": 2]`: the types, the count and the first entries, in key
    /// order.
    public var description: String {
        Describing.collection(
            "Map<\(Key.self), \(Value.self)>", of: backing.owner, { entries }, { Describing.entry($0.key, $0.value) })
    }
}

/// Collections seen without their element type (an object's description shows them as lists).
protocol DescribableCollection {
    var elementDescriptions: [String] { get }
}

extension List: DescribableCollection {
    var elementDescriptions: [String] { elements.map(Describing.element) }
}

extension MutableSet: DescribableCollection {
    var elementDescriptions: [String] { elements.map(Describing.element) }
}

extension Map: DescribableCollection {
    var elementDescriptions: [String] {
        entries.map { Describing.entry($0.key, $0.value) }
    }
}

extension LinkingObjects: CustomStringConvertible {
    /// `LinkingObjects<Person> (2): [Person { … }, …]`.
    public var description: String {
        if let core, !core.isConfined { return "LinkingObjects<\(Origin.self)> (on another thread)" }
        let count = self.count
        return "LinkingObjects<\(Origin.self)> (\(count)): "
            + Describing.list(prefix(Describing.elementLimit).map(\.description), total: count)
    }
}
