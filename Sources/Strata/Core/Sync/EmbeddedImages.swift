/// Embedded objects in sync. An EmbeddedObject has no primary key to name it by on another client,
/// so it travels inside its owner: a column that links to embedded objects (a link, a List or a Map
/// of them) is sent as its *image*, and a change of an embedded object as a change of that column of
/// the owner it belongs to.
///
/// An image is what the column would hold if every embedded object were written in place of its
/// key: for a link, the embedded object's row (`RowEncoder`'s format, unsealed), in which each
/// column that itself links to embedded objects is again an image; for a List, a list of such rows;
/// for a Map, its keys with such rows (null for nil). Links to objects with a primary key stay keys,
/// which name the same object on every client. Images are deterministic: the same objects give the
/// same bytes, so a client compares an incoming image with the one it would send.
enum EmbeddedImage {
    /// Deeper nesting than this is damage (one owner per embedded object: no cycle in a sound file).
    static let maximumDepth = 64
}

extension SyncExchange {
    /// The EmbeddedObject type a column links to, if it does.
    func embeddedTarget(of type: PropertyType) -> TableBinding? {
        guard let target = type.linkedTypeName, let binding = binding(named: target),
            binding.schema.isEmbedded
        else { return nil }
        return binding
    }

    /// A type's columns as sync describes them: a link to an EmbeddedObject as `.embedded` with the
    /// embedded type's own columns.
    ///
    /// - Throws: `.schemaMismatch` for a link to a type keyed by row ids (they differ from file to
    ///   file: no other client could tell which object it names).
    func syncProperties(of binding: TableBinding, depth: Int = 0) throws(StoreError) -> [SyncTypeSchema.Property] {
        guard depth < EmbeddedImage.maximumDepth else {
            throw .schemaMismatch("\(binding.name): embedded objects nest more than \(EmbeddedImage.maximumDepth) deep")
        }
        var properties: [SyncTypeSchema.Property] = []
        for (name, type) in zip(binding.columnNames, binding.columnTypes) {
            guard let targetName = type.linkedTypeName, let target = self.binding(named: targetName),
                target.primaryKeyColumn == nil
            else {
                properties.append(SyncTypeSchema.Property(name: name, type: SyncType(type)))
                continue
            }
            guard target.schema.isEmbedded else {
                throw .schemaMismatch(
                    "\(binding.name).\(name) links to \(targetName), which is keyed by row ids: sync names objects by "
                        + "primary key")
            }
            let embedded = SyncType.embedded(target.name, try syncProperties(of: target, depth: depth + 1))
            let synced: SyncType =
                switch type {
                case .list: .list(embedded)
                case .set: .set(embedded)
                case .map: .map(embedded)
                default: embedded
                }
            properties.append(SyncTypeSchema.Property(name: name, type: synced))
        }
        return properties
    }

    // MARK: Images of stored columns

    /// The image of a column that links to `target`'s embedded objects; `read` finds their rows. A
    /// link to a missing row is nil (in a List, left out), as reads show it.
    func image(
        of column: UnsafeRawBufferPointer?, type: PropertyType, target: TableBinding, depth: Int = 0,
        read: (TableBinding, UnsafeRawBufferPointer) throws(StoreError) -> RowView?
    ) throws(StoreError) -> [UInt8]? {
        guard depth < EmbeddedImage.maximumDepth else {
            throw .corrupted("\(target.name): embedded objects nest more than \(EmbeddedImage.maximumDepth) deep")
        }
        guard let column else { return nil }
        func rowImage(_ key: UnsafeRawBufferPointer) throws(StoreError) -> [UInt8]? {
            guard let row = try read(target, key) else { return nil }
            var encoder = _RowEncoder()
            encoder.beginRow(columns: target.columnCount)
            for index in 0..<target.columnCount {
                let bytes: UnsafeRawBufferPointer?
                do {
                    bytes = try row.column(index)
                } catch {
                    throw .corrupted("\(target.name).\(target.columnNames[index]): \(error)")
                }
                if let nested = embeddedTarget(of: target.columnTypes[index]) {
                    let image = try image(
                        of: bytes, type: target.columnTypes[index], target: nested, depth: depth + 1, read: read)
                    image.withOptionalBytes { encoder.appendColumn(copying: $0) }
                } else {
                    encoder.appendColumn(copying: bytes)
                }
            }
            return encoder.withRow { Array($0) }
        }
        do {
            switch type {
            case .link:
                return try rowImage(column)
            case .list, .set:
                var images: [[UInt8]] = []
                for element in try ListFormat.elements(column) {
                    guard let element, let image = try rowImage(element) else { continue }
                    images.append(image)
                }
                return Self.listColumn(images)
            case .map:
                var entries: [String: [UInt8]?] = [:]
                for entry in try MapFormat.entries(column) {
                    entries[String(decoding: entry.key, as: UTF8.self)] =
                        .some(try entry.value.flatMap { (key) throws(StoreError) in try rowImage(key) })
                }
                return MapFormat.column(entries)
            default:
                throw StoreError.corrupted("\(type) does not link to embedded objects")
            }
        } catch let error as RowDamage {
            throw .corrupted("\(target.name): \(error)")
        } catch let error as StoreError {
            throw error
        } catch {
            throw .corrupted("\(error)")
        }
    }

    private static func listColumn(_ images: [[UInt8]]) -> [UInt8] {
        _RowEncoder.columnBytes { encoder in
            encoder.writeListHeader(count: images.count)
            for image in images { image.withUnsafeBytes { encoder.writeElement($0) } }
            encoder.endColumn()
        }
    }

    // MARK: Images as the server's values

    /// An image as the server's `jsonb` holds it: an object of the embedded object's properties (a
    /// List an array of them, a Map an object of them).
    func syncValue(ofImage image: UnsafeRawBufferPointer?, type: PropertyType, target: TableBinding)
        throws(StoreError) -> SyncValue
    {
        try walkImage(image, type: type, target: target, depth: 0) { (row, target, depth) throws(StoreError) in
            var properties: [String: SyncValue] = [:]
            for index in 0..<target.columnCount {
                let bytes = try Self.column(row, index, of: target)
                let type = target.columnTypes[index]
                if let nested = embeddedTarget(of: type) {
                    properties[target.columnNames[index]] = try syncValue(ofImage: bytes, type: type, target: nested)
                } else {
                    properties[target.columnNames[index]] = try syncValue(bytes, type: type)
                }
            }
            return .map(properties)
        } list: {
            .list($0)
        } map: {
            .map($0)
        } null: {
            .null
        }
    }

    /// Checks that `image` is an image of `type` (every row of `target`'s columns, every value of its
    /// property's type): what a client checks before applying a pulled change.
    func validateImage(_ image: UnsafeRawBufferPointer?, type: PropertyType, target: TableBinding) throws(StoreError) {
        _ = try walkImage(image, type: type, target: target, depth: 0) { (row, target, _) throws(StoreError) in
            for index in 0..<target.columnCount {
                let bytes = try Self.column(row, index, of: target)
                let type = target.columnTypes[index]
                if let nested = embeddedTarget(of: type) {
                    try validateImage(bytes, type: type, target: nested)
                } else {
                    _ = try DynamicValue.decode(bytes, type: type) { _, _ in nil }
                }
            }
            return ()
        } list: { _ in
        } map: { _ in
        } null: {
        }
    }

    /// Walks an image: each embedded row through `row`, a List's and a Map's results through `list`
    /// and `map`.
    ///
    /// - Throws: `.corrupted` for bytes that are not an image of `type`.
    private func walkImage<Value>(
        _ image: UnsafeRawBufferPointer?, type: PropertyType, target: TableBinding, depth: Int,
        row: (RowView, TableBinding, Int) throws(StoreError) -> Value, list: ([Value]) -> Value,
        map: ([String: Value]) -> Value, null: () -> Value
    ) throws(StoreError) -> Value {
        guard depth < EmbeddedImage.maximumDepth else {
            throw .corrupted("\(target.name): embedded objects nest more than \(EmbeddedImage.maximumDepth) deep")
        }
        guard let image else { return null() }
        func embedded(_ bytes: UnsafeRawBufferPointer) throws(StoreError) -> Value {
            let view: RowView
            do {
                view = try RowView(validating: bytes, expectedColumns: target.columnCount)
            } catch {
                throw .corrupted("an embedded \(target.name): \(error)")
            }
            return try row(view, target, depth)
        }
        do {
            switch type {
            case .link:
                return try embedded(image)
            case .list, .set:
                var values: [Value] = []
                for element in try ListFormat.elements(image) {
                    guard let element else { throw RowDamage("a null embedded object in a List") }
                    values.append(try embedded(element))
                }
                return list(values)
            case .map:
                var values: [String: Value] = [:]
                for entry in try MapFormat.entries(image) {
                    values[String(decoding: entry.key, as: UTF8.self)] = try entry.value.map(embedded) ?? null()
                }
                return map(values)
            default:
                throw RowDamage("\(type) does not link to embedded objects")
            }
        } catch let error as RowDamage {
            throw .corrupted("an image of \(target.name): \(error)")
        } catch let error as StoreError {
            throw error
        } catch {
            throw .corrupted("\(error)")
        }
    }

    private static func column(_ row: RowView, _ index: Int, of target: TableBinding) throws(StoreError)
        -> UnsafeRawBufferPointer?
    {
        do {
            return try row.column(index)
        } catch {
            throw .corrupted("an embedded \(target.name).\(target.columnNames[index]): \(error)")
        }
    }

    // MARK: Storing incoming images

    /// Stores the embedded objects of an incoming image as new rows of `target` (nested ones first)
    /// and returns the column that links to them. The rows they replace are deleted when the owner's
    /// row is replaced (`replaceRow` drops embedded objects no longer linked).
    func materialize(
        _ image: UnsafeRawBufferPointer?, type: PropertyType, target: TableBinding, session: WriteSession
    ) throws(StoreError) -> [UInt8]? {
        try walkImage(image, type: type, target: target, depth: 0) { (row, target, _) throws(StoreError) -> [UInt8]? in
            var columns: [[UInt8]?] = []
            for index in 0..<target.columnCount {
                let bytes = try Self.column(row, index, of: target)
                if let nested = embeddedTarget(of: target.columnTypes[index]) {
                    columns.append(
                        try materialize(bytes, type: target.columnTypes[index], target: nested, session: session))
                } else {
                    columns.append(bytes.map { Array($0) })
                }
            }
            let key = try session.nextRowID(for: target)
            var encoder = _RowEncoder()
            encoder.beginRow(columns: target.columnCount)
            for column in columns { column.withOptionalBytes { encoder.appendColumn(copying: $0) } }
            _ = try encoder.withEncodedRow(columns: target.columnCount) { (encoded) throws(StoreError) in
                try core.insertRow(encoded, key: key, binding: target, session: session)
            }
            return key.storedBytes
        } list: { keys in
            _RowEncoder.columnBytes { $0.appendKeyList(keys.compactMap { $0 }) }
        } map: { entries in
            MapFormat.column(entries)
        } null: {
            nil
        }
    }
}
