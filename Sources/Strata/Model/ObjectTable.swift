/// A model type's table in one file, as its managed objects see it: the names and the key format
/// that messages and descriptions need. `TableBinding` (Schema/) is the one subclass and adds how
/// rows are read and written. Immutable.
class ObjectTable: @unchecked Sendable {  // immutable
    /// The stored type name.
    let name: String
    let keyKind: KeyKind
    /// Whether integer keys are signed (how a key reads back in messages).
    let hasSignedKeys: Bool
    /// Stored property names, by column.
    let columnNames: [String]
    /// The stored column of each code property (declaration order; -1: not stored in this file).
    let columnOfProperty: [Int]

    init(name: String, keyKind: KeyKind, hasSignedKeys: Bool, columnNames: [String], columnOfProperty: [Int]) {
        self.name = name
        self.keyKind = keyKind
        self.hasSignedKeys = hasSignedKeys
        self.columnNames = columnNames
        self.columnOfProperty = columnOfProperty
    }

    /// The primary key as a user would write it, for messages.
    final func describe(_ key: RowKey) -> String {
        key.describe(as: keyKind, signed: hasSignedKeys)
    }

    /// `Person[1].name`: where a row (or one of its columns) is, for messages.
    final func location(of key: RowKey, column: Int? = nil) -> String {
        "\(name)[\(describe(key))]" + (column.map { ".\(columnNames[$0])" } ?? "")
    }
}
