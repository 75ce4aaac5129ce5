/// A secondary index: a table with duplicates mapping index keys to row keys.
struct IndexBinding: Sendable {
    let column: Int
    let property: String
    let type: PropertyType
    let table: Table
    /// A unique property's index: one row per value (nil excepted).
    var isUnique = false
}

/// A link or List-of-links property and its backlink table (a table with duplicates mapping each
/// target's row key to the keys of the rows linking to it), which finds the rows to fix when a target
/// is deleted and serves `LinkingObjects`.
struct LinkBinding: Sendable {
    let column: Int
    let property: String
    let target: String
    /// The column's type: a link, or a List, MutableSet or Map of links.
    let type: PropertyType
    let table: Table
    /// Whether the row owns its targets (`@Persisted(owning:)`, or links to an EmbeddedObject).
    var isOwning = false

    /// Whether the column holds several links (a List, MutableSet or Map).
    var isCollection: Bool { type.isCollection }
}

/// The tables of one stored type, found by name among the file's opened tables: its rows, one
/// table per index, one backlink table per link or List-of-links property.
struct StoredTables {
    let objects: Table
    let indexes: [IndexBinding]
    let links: [LinkBinding]
    /// `Object.uniqueKeys`, bound to columns and indexes.
    let uniqueGroups: [UniqueGroup]
    /// `@Persisted(indexed: .fullText)` properties and their tables.
    let fullText: [FullTextIndex]
    /// `@Persisted(indexed: .vector(…))` properties and their tables.
    let vectors: [VectorIndex]

    /// - Throws: `.corrupted` naming the table the file lacks.
    init(_ type: StoredSchema.StoredType, in tables: [String: Table]) throws(StoreError) {
        func table(_ name: String) throws(StoreError) -> Table {
            guard let table = tables[name] else {
                throw .corrupted("the schema names table \(name), which the file lacks")
            }
            return table
        }
        var indexes: [IndexBinding] = []
        var links: [LinkBinding] = []
        var fullText: [FullTextIndex] = []
        var vectors: [VectorIndex] = []
        let integerKeys = type.properties.first(where: \.isPrimaryKey).map { $0.type.keyKind == .integer } ?? true
        for (column, property) in type.properties.enumerated() {
            if let settings = property.fullText {
                let numbering =
                    integerKeys
                    ? nil
                    : (
                        documents: try table(TableName.fullTextDocuments(type.name, property.name)),
                        rows: try table(TableName.fullTextRows(type.name, property.name))
                    )
                fullText.append(
                    FullTextIndex(
                        typeName: type.name, property: property.name, column: column, settings: settings,
                        terms: try table(TableName.fullTextTerms(type.name, property.name)), numbering: numbering,
                        tokenizer: settings.tokenizer))
            }
            if let settings = property.vector {
                let names = TableName.vectorTables(type.name, property.name, integerKeys: integerKeys)
                vectors.append(
                    VectorIndex(
                        typeName: type.name, property: property.name, column: column, settings: settings,
                        nodes: try table(names[0]), links: try table(names[1]),
                        numbering: integerKeys ? nil : (documents: try table(names[2]), rows: try table(names[3]))))
            }
            if property.isIndexed {
                indexes.append(
                    IndexBinding(
                        column: column, property: property.name, type: property.type,
                        table: try table(TableName.index(type.name, property.name)), isUnique: property.isUnique))
            }
            if let target = property.type.linkedTypeName {
                links.append(
                    LinkBinding(
                        column: column, property: property.name, target: target, type: property.type,
                        table: try table(TableName.backlinks(type.name, property.name)), isOwning: property.isOwning))
            }
        }
        objects = try table(TableName.objects(type.name))
        self.indexes = indexes
        self.links = links
        self.fullText = fullText
        self.vectors = vectors
        var uniqueGroups: [UniqueGroup] = []
        for names in type.uniqueKeys { uniqueGroups.append(try UniqueGroup(names, of: type, indexes: indexes)) }
        self.uniqueGroups = uniqueGroups
    }

    /// The entries each row implies in the index and backlink tables.
    var derived: DerivedEntries { DerivedEntries(indexes: indexes, links: links, fullText: fullText, vectors: vectors) }
}

/// One model type bound to its tables in one file: which stored column each property is, and the
/// table handles. Immutable.
final class TableBinding: ObjectTable, @unchecked Sendable {  // immutable; ObjectSchema is immutable
    let schema: ObjectSchema
    let table: Table
    /// Columns per row in this file.
    let columnCount: Int
    /// The code property of each stored column.
    let propertyOfColumn: [Int]
    let primaryKeyColumn: Int?
    let primaryKeyType: PropertyType?
    /// Whether the primary key is an `Int` (64 bits, signed): a lookup by an `Int` needs no range check.
    let hasIntPrimaryKey: Bool
    let indexes: [IndexBinding]
    let links: [LinkBinding]
    /// The entries each row implies in the index and backlink tables.
    let derived: DerivedEntries
    /// Whether a property is `unique:` or the type has `uniqueKeys` (values checked before a row is
    /// written).
    let hasUniqueProperties: Bool
    /// `Object.uniqueKeys`, bound to columns and indexes.
    let uniqueGroups: [UniqueGroup]
    /// Per column, whether it holds a link or a list of links.
    let isLinkColumn: [Bool]
    /// Where each `LinkingObjects` of an instance lies, to bind it when the object becomes managed.
    let linkingAccessors: [PropertyAccessor]
    /// Whether any column links to objects (a to-one link or a List of objects).
    let hasLinkColumns: Bool
    /// Per column, whether its values may link to objects: links, and mixed values (`AnyValue.object`).
    let mayHoldLinks: [Bool]
    /// Whether any column's values may link to objects (what `add` must walk and give keys first).
    let reachesObjects: Bool
    /// Whether an iteration may re-point an accessor of this type nothing else holds (`ObjectSchema`).
    let reusesAccessors: Bool
    /// Stored property types, by column.
    let columnTypes: [PropertyType]
    /// The columns that hold a Map (sync records which keys a change set).
    let mapColumns: Set<Int>
    /// Position among the Store's bindings, for per-table counters.
    let ordinal: Int
    /// Whether the table's keys (and its indexes') are stored in the order of their values: false in
    /// an encrypted file, whose keys are sealed and put in order per transaction when walked
    /// (`SealedOrder`, Docs/Encryption.md), so that no split walk is planned.
    let keysInOrder: Bool
    /// The accessors of the stored columns, in column order (what `add` encodes a row with).
    let columnAccessors: [PropertyAccessor]
    /// Per property, where its column number goes in an instance and which column it is (what
    /// managing an object stores).
    let columnBindings: [(offset: Int, column: Int)]
    /// The link and List properties: managing an object drops their unmanaged values, which may
    /// form cycles (a dog's owner lists the dog) that would keep the objects and their Store alive.
    let linkProperties: [(offset: Int, kind: any PersistedPropertyKind.Type)]
    /// A key path per column for Observation, when the type conforms to `Observable`.
    let observation: ColumnObservation?

    init(
        schema: ObjectSchema, stored: StoredSchema.StoredType, tables: StoredTables, ordinal: Int, keysInOrder: Bool
    ) {
        self.schema = schema
        self.keysInOrder = keysInOrder
        let columnOfProperty = schema.properties.map { property in
            stored.properties.firstIndex { $0.name == property.name } ?? -1
        }
        links = tables.links
        derived = tables.derived
        hasUniqueProperties = tables.indexes.contains { $0.isUnique } || !tables.uniqueGroups.isEmpty
        uniqueGroups = tables.uniqueGroups
        isLinkColumn = stored.properties.map { $0.type.linkedTypeName != nil }
        linkingAccessors = schema.linkingProperties.map(\.accessor)
        reusesAccessors = schema.reusesAccessors
        hasLinkColumns = isLinkColumn.contains(true)
        mayHoldLinks = stored.properties.map(\.type.mayHoldLinks)
        reachesObjects = mayHoldLinks.contains(true)
        table = tables.objects
        columnCount = stored.properties.count
        observation = schema.observation.map { ColumnObservation(type: $0, columnNames: stored.properties.map(\.name)) }
        propertyOfColumn = stored.properties.map { property in
            schema.properties.firstIndex { $0.name == property.name } ?? -1
        }
        primaryKeyColumn = stored.properties.firstIndex(where: \.isPrimaryKey)
        primaryKeyType = primaryKeyColumn.map { stored.properties[$0].type }
        hasIntPrimaryKey = primaryKeyType == .int64
        indexes = tables.indexes
        columnTypes = stored.properties.map(\.type)
        mapColumns = Set(stored.properties.indices.filter { stored.properties[$0].type.isMap })
        self.ordinal = ordinal
        // A stored type's schema (a DynamicStore's) has no accessors: nothing encodes its rows.
        columnAccessors = schema.isStoredOnly ? [] : propertyOfColumn.map { schema.accessors[$0] }
        columnBindings = zip(schema.accessors, columnOfProperty).map { ($0.columnOffset, $1) }
        linkProperties = schema.accessors.filter { $0.kind.schemaType.linkedType != nil }.map { ($0.offset, $0.kind) }
        // Computed before `super.init`, not in its argument list: a key path turned into a function
        // there crashes the optimiser of Swift 6.3.1 (an ownership verifier failure in release builds).
        let columnNames = stored.properties.map { $0.name }
        super.init(
            name: schema.name, keyKind: schema.keyKind, hasSignedKeys: primaryKeyType?.isSignedInteger ?? false,
            columnNames: columnNames, columnOfProperty: columnOfProperty)
    }
}
