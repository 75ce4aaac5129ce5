import Foundation

/// One property of an object type, as stored in the file.
struct PropertySchema: Hashable, Codable, Sendable {
    var name: String
    var type: PropertyType
    var isPrimaryKey: Bool
    var isIndexed: Bool
    /// `@Persisted(unique: true)` (always indexed too). Absent from files written before it existed.
    var isUnique: Bool = false
    /// `@Persisted(owning: true)`, or a link to an EmbeddedObject: deleting the row deletes the
    /// targets no other owning link holds.
    var isOwning: Bool = false
    /// `@Persisted(indexed: .fullText)`: the full-text index's tokenizer choices (absent: none).
    var fullText: FullTextSettings?
    /// `@Persisted(indexed: .vector(…))`: the vector index's settings (absent: none).
    var vector: VectorSettings?

    init(
        name: String, type: PropertyType, isPrimaryKey: Bool, isIndexed: Bool, isUnique: Bool = false,
        isOwning: Bool = false, fullText: FullTextSettings? = nil, vector: VectorSettings? = nil
    ) {
        self.name = name
        self.type = type
        self.isPrimaryKey = isPrimaryKey
        self.isIndexed = isIndexed
        self.isUnique = isUnique
        self.isOwning = isOwning
        self.fullText = fullText
        self.vector = vector
    }

    private enum CodingKeys: String, CodingKey {
        case name, type, isPrimaryKey, isIndexed, isUnique, isOwning, fullText, vector
    }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        name = try container.decode(String.self, forKey: .name)
        type = try container.decode(PropertyType.self, forKey: .type)
        isPrimaryKey = try container.decode(Bool.self, forKey: .isPrimaryKey)
        isIndexed = try container.decode(Bool.self, forKey: .isIndexed)
        isUnique = try container.decodeIfPresent(Bool.self, forKey: .isUnique) ?? false
        isOwning = try container.decodeIfPresent(Bool.self, forKey: .isOwning) ?? false
        fullText = try container.decodeIfPresent(FullTextSettings.self, forKey: .fullText)
        vector = try container.decodeIfPresent(VectorSettings.self, forKey: .vector)
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(name, forKey: .name)
        try container.encode(type, forKey: .type)
        try container.encode(isPrimaryKey, forKey: .isPrimaryKey)
        try container.encode(isIndexed, forKey: .isIndexed)
        if isUnique { try container.encode(isUnique, forKey: .isUnique) }  // old files stay byte-identical
        if isOwning { try container.encode(isOwning, forKey: .isOwning) }
        try container.encodeIfPresent(fullText, forKey: .fullText)
        try container.encodeIfPresent(vector, forKey: .vector)
    }
}

/// The schema as written in the file's `meta` table (JSON), with the columns in stored order.
struct StoredSchema: Codable, Equatable, Sendable {
    var schemaVersion: UInt64
    var types: [StoredType]

    struct StoredType: Codable, Equatable, Sendable {
        var name: String
        /// The columns of this type's rows, in order.
        var properties: [PropertySchema]
        /// Whether the type is an `EmbeddedObject` (absent from files written before it existed).
        var isEmbedded = false
        /// `Object.uniqueKeys`: groups of property names (absent when there are none).
        var uniqueKeys: [[String]] = []

        init(name: String, properties: [PropertySchema], isEmbedded: Bool = false, uniqueKeys: [[String]] = []) {
            self.name = name
            self.properties = properties
            self.isEmbedded = isEmbedded
            self.uniqueKeys = uniqueKeys
        }

        init(_ schema: ObjectSchema) {
            self.init(
                name: schema.name, properties: schema.properties, isEmbedded: schema.isEmbedded,
                uniqueKeys: schema.uniqueKeys)
        }

        private enum CodingKeys: String, CodingKey {
            case name, properties, isEmbedded, uniqueKeys
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            name = try container.decode(String.self, forKey: .name)
            properties = try container.decode([PropertySchema].self, forKey: .properties)
            isEmbedded = try container.decodeIfPresent(Bool.self, forKey: .isEmbedded) ?? false
            uniqueKeys = try container.decodeIfPresent([[String]].self, forKey: .uniqueKeys) ?? []
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(name, forKey: .name)
            try container.encode(properties, forKey: .properties)
            if isEmbedded { try container.encode(isEmbedded, forKey: .isEmbedded) }  // old files byte-identical
            if !uniqueKeys.isEmpty { try container.encode(uniqueKeys, forKey: .uniqueKeys) }
        }

        var primaryKey: PropertySchema? { properties.first(where: \.isPrimaryKey) }
    }

    func type(named name: String) -> StoredType? {
        types.first { $0.name == name }
    }

    func encoded() throws(StoreError) -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        do {
            return Array(try encoder.encode(self))
        } catch {
            throw .invalidArgument("the schema cannot be encoded: \(error)")
        }
    }

    /// - Throws: `.corrupted` when the bytes are not a schema.
    init(decoding bytes: UnsafeRawBufferPointer) throws(StoreError) {
        do {
            self = try JSONDecoder().decode(StoredSchema.self, from: Data(bytes))
        } catch {
            throw .corrupted("the stored schema cannot be read (\(bytes.count) bytes): \(error)")
        }
        var typeNames = Set<String>()
        for type in types {
            guard typeNames.insert(type.name).inserted else {
                throw .corrupted("the stored schema lists the type \(type.name) twice")
            }
            let names = Set(type.properties.map(\.name))
            guard names.count == type.properties.count, type.properties.filter(\.isPrimaryKey).count <= 1 else {
                throw .corrupted("the stored schema of \(type.name) repeats a property or a primary key")
            }
        }
    }

    init(schemaVersion: UInt64, types: [StoredType]) {
        self.schemaVersion = schemaVersion
        self.types = types
    }
}

/// Names of the LMDB tables of a file.
enum TableName {
    static let meta = StrataFormat.metaTable
    static func objects(_ type: String) -> String { StrataFormat.rowTablePrefix + type }
    static func index(_ type: String, _ property: String) -> String { "index.\(type).\(property)" }
    static func backlinks(_ type: String, _ property: String) -> String { "backlinks.\(type).\(property)" }
    /// A full-text index's tables (`FullTextIndex`): its terms, and for types whose keys are not
    /// integers its document numbers.
    static func fullTextTerms(_ type: String, _ property: String) -> String { "fulltext.\(type).\(property)" }
    static func fullTextDocuments(_ type: String, _ property: String) -> String {
        "fulltext.\(type).\(property).documents"
    }
    static func fullTextRows(_ type: String, _ property: String) -> String { "fulltext.\(type).\(property).rows" }
    /// A vector index's tables (`VectorIndex`): its nodes and links, and for types whose keys are not
    /// integers its document numbers.
    static func vectorTables(_ type: String, _ property: String, integerKeys: Bool) -> [String] {
        let base = "vector.\(type).\(property)"
        return [base, base + ".links"] + (integerKeys ? [] : [base + ".documents", base + ".rows"])
    }
}

/// Keys of the `meta` table.
enum MetaKey {
    static let format = StrataFormat.formatKey
    static let schema = StrataFormat.schemaKey
}

extension StoredSchema.StoredType {
    /// What differs between this stored type and the code's, in words. Column order may differ:
    /// columns are matched by name.
    struct Change {
        /// Added, removed and retyped properties: rows must be converted.
        var columns: [String] = []
        /// A different primary key (which migrations do not support).
        var primaryKey: String?
        /// Whether an index was added or dropped.
        var indexes = false
    }

    func change(to code: ObjectSchema) -> Change {
        var change = Change()
        // Flags and derived tables: rewritten, no migration.
        if isEmbedded != code.isEmbedded || uniqueKeys != code.uniqueKeys { change.indexes = true }
        let stored = Dictionary(properties.map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        for property in code.properties {
            guard let old = stored[property.name] else {
                change.columns.append("\(name).\(property.name) was added")
                if property.isPrimaryKey { change.primaryKey = "\(name).\(property.name) became the primary key" }
                continue
            }
            if old.type != property.type {
                change.columns.append("\(name).\(property.name) changed type from \(old.type) to \(property.type)")
                if property.isPrimaryKey { change.primaryKey = "the primary key \(name).\(property.name) changed type" }
            }
            if old.isPrimaryKey != property.isPrimaryKey {
                change.primaryKey =
                    "\(name).\(property.name) \(property.isPrimaryKey ? "became" : "is no longer") the primary key"
            }
            if old.isIndexed != property.isIndexed || old.isUnique != property.isUnique
                || old.isOwning != property.isOwning || old.fullText != property.fullText
                || old.vector != property.vector
            {
                change.indexes = true  // derived tables and flags only: rebuilt, no migration
            }
        }
        let codeNames = Set(code.properties.map(\.name))
        for property in properties where !codeNames.contains(property.name) {
            change.columns.append("\(name).\(property.name) was removed")
            if property.isPrimaryKey { change.primaryKey = "the primary key \(name).\(property.name) was removed" }
        }
        return change
    }
}
