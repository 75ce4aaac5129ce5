/// One property of an `ObjectChange`. Values are as the property's type reads them; for links and
/// Lists they are nil (the new value is on the object).
public struct PropertyChange {
    /// The property's name, as declared.
    public let name: String
    /// Its value before the change.
    public let oldValue: Any?
    /// Its value after the change.
    public let newValue: Any?
}

extension PropertyChange: CustomStringConvertible {
    /// `name: "Ann" → "Anna"` (links and Lists: `dogs: changed`).
    public var description: String {
        guard oldValue != nil || newValue != nil else { return "\(name): changed" }
        return "\(name): \(Self.describe(oldValue)) → \(Self.describe(newValue))"
    }

    private static func describe(_ value: Any?) -> String {
        switch value {
        case let string as String: "\"\(string)\""
        case let value?: "\(value)"
        case nil: "nil"
        }
    }
}
