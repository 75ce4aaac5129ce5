/// Descriptions of objects and their collections, for logs, `print` and the demo: they read a type's
/// properties through its schema. They never throw or trap: what cannot be read shows as
/// `<invalidated>` or `<damaged>` (every `try?` here), and reads and `verify()` report it.

/// How collections describe themselves: the first elements, then how many more.
enum Describing {
    static let elementLimit = 3

    static func list(_ shown: [String], total: Int) -> String {
        let more = total > shown.count ? ", … \(total - shown.count) more" : ""
        return "[" + shown.joined(separator: ", ") + more + "]"
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
        case let object as Object: return "\(type(of: object))(\(object.primaryKeyDescription))"
        case let string as String: return "\"\(string)\""
        case let list as DescribableList: return "[\(list.elementDescriptions.joined(separator: ", "))]"
        case let value?: return "\(value)"
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
        if case .managed(let owner, _) = backing, let core = owner._store, !core.isConfined {
            return "List<\(Element.self)> (on another thread)"
        }
        let shown = Array(elementDescriptions.prefix(10))
        return "List<\(Element.self)> (\(count)): " + Describing.list(shown, total: count)
    }
}

/// Lists seen without their element type (descriptions).
protocol DescribableList {
    var elementDescriptions: [String] { get }
}

extension List: DescribableList {
    var elementDescriptions: [String] {
        elements.map { element in
            switch element {
            case let object as Object: "\(type(of: object))(\(object.primaryKeyDescription))"
            case let string as String: "\"\(string)\""
            default: "\(element)"
            }
        }
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
