/// `verify()`: walks every table of the schema and checks what reads would otherwise trap on.
extension StoreCore {
    /// - Throws: `.corrupted` naming the first damage found, `.wrongThread`, `.storage`.
    func verify() throws(StoreError) {
        try checkConfined()
        if !environment.isInMemory { _ = try environment.checkPages() }  // before LMDB walks those pages
        for binding in bindings {
            try verifyRows(of: binding)
        }
    }

    private func verifyRows(of binding: TableBinding) throws(StoreError) {
        var damage: StoreError?
        var rows = 0
        var linkCounts = Array(repeating: 0, count: binding.links.count)
        do {
            try withCursor(binding.table) { (cursor) throws(LMDBError) in
                var entry = try cursor.first()
                while let current = entry, damage == nil {
                    rows += 1
                    do throws(StoreError) {
                        try verifyRow(key: current.key, value: current.value, binding: binding, linkCounts: &linkCounts)
                    } catch {
                        damage = error
                    }
                    entry = try cursor.next()
                }
            }
            if let damage { throw damage }
            for (link, expected) in zip(binding.links, linkCounts) {
                let entries = try count(link.table)
                guard entries == expected else {
                    throw StoreError.corrupted(
                        "backlinks of \(binding.name).\(link.property) have \(entries) entries for \(expected) links")
                }
            }
            for index in binding.indexes {
                let entries = try count(index.table)
                guard entries == rows else {
                    throw StoreError.corrupted(
                        "index \(binding.name).\(index.property) has \(entries) entries for \(rows) rows")
                }
            }
        } catch {
            throw StoreError(wrapping: error)
        }
    }

    private func verifyRow(
        key rawKey: UnsafeRawBufferPointer, value: UnsafeRawBufferPointer, binding: TableBinding,
        linkCounts: inout [Int]
    ) throws(StoreError) {
        let key: RowKey
        do {
            key = try RowKey(stored: rawKey, kind: binding.keyKind)
        } catch {
            throw .corrupted("\(binding.name): a key is damaged: \(error)")
        }
        let name = "\(binding.name)[\(binding.describe(key))]"
        let row = try validatedRow(value, binding: binding, key: key)
        for column in 0..<binding.columnCount {
            let kind = binding.schema.accessors[binding.propertyOfColumn[column]].kind
            do {
                _ = try kind.decodeForDescription(row.column(column), in: _DecodeContext(owner: nil, column: column))
            } catch {
                throw .corrupted("\(name).\(binding.columnNames[column]): \(error)")
            }
        }
        if let column = binding.primaryKeyColumn, let type = binding.primaryKeyType {
            let derived = (try? row.column(column)).flatMap { $0 }.flatMap { try? KeyEncoding.rowKey(column: $0, type: type) }
            guard derived == key else { throw .corrupted("\(name): the primary key column does not match the key") }
        }
        var indexKey: [UInt8] = []
        for index in binding.indexes {
            do {
                try KeyEncoding.indexKey(column: row.column(index.column), type: index.type, into: &indexKey)
            } catch {
                throw .corrupted("\(name).\(index.property): \(error)")
            }
            let found: Bool
            do {
                found = try withCursor(index.table) { (cursor) throws(LMDBError) -> Bool in
                    try indexKey.withBytes { (indexKey) throws(LMDBError) -> Bool in
                        try cursor.find(key: indexKey, value: rawKey) != nil
                    }
                }
            } catch {
                throw StoreError(error)
            }
            guard found else { throw .corrupted("\(name).\(index.property) is missing from its index") }
        }
        for (position, link) in binding.links.enumerated() {
            let targets = try linkTargets(of: row, link, binding: binding, key: key)
            linkCounts[position] += targets.count
            guard let target = bindings.first(where: { $0.name == link.target }) else { continue }
            for targetKey in targets {
                let present: Bool
                do {
                    present = try targetKey.withBytes { (targetKey) throws(LMDBError) -> Bool in
                        guard try get(target.table, key: targetKey) != nil else { return false }
                        return try withCursor(link.table) { (cursor) throws(LMDBError) -> Bool in
                            try cursor.find(key: targetKey, value: rawKey) != nil
                        }
                    }
                } catch {
                    throw StoreError(error)
                }
                guard present else { throw .corrupted("\(name).\(link.property) links to a missing \(link.target) or lacks its backlink") }
            }
        }
    }
}

extension Store {
    /// Walks every table, row and index of the schema: every row decodes, every primary key matches
    /// its row, every index holds exactly one entry per row, every link names an existing object and
    /// has its backlink (deleting an object clears the links to it).
    ///
    /// ```swift
    /// do { try store.verify() } catch .corrupted(let damage) { print(damage) }
    /// ```
    /// - Throws: `.corrupted` naming the type, key and damage of the first problem; `.wrongThread`,
    ///   `.storage`.
    public func verify() throws(StoreError) {
        try core.verify()
    }
}
