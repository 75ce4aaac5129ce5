#if Sync
    @_spi(StrataSync) import Strata

    /// A batch that only inserts objects of one type, each once (an app's import, a first upload):
    /// its column arrays and log made in one pass, without the merging per object that another batch
    /// needs (`PreparedPush.tableWrites`). Its objects' images are its payloads.
    ///
    /// Made either from the file's bytes (`OutgoingInsertSink`: no `OutgoingChange` per object, the
    /// usual way) or from changes read already.
    struct BulkInsert: OutgoingInsertSink {
        let table: TypedTable
        /// One array per column, in the columns' order.
        private(set) var columns: [ColumnArray]
        private(set) var log = PreparedPush.Log()
        /// The outbox places of the batch's first and last objects.
        private(set) var sequences: (first: UInt64, last: UInt64)?
        /// The first value that was not of its column's type (`SyncError.unsupportedType`).
        private(set) var failure: SyncError?

        /// An empty batch of inserts of `type`, for objects given by the file.
        init(_ type: SyncTypeSchema, capacity: Int, keyTypes: [String: SyncType]) {
            table = TypedTable(type, keyTypes: keyTypes)
            columns = table.columns.map { ColumnArray($0.element, capacity: capacity) }
        }

        /// nil when `changes` are not such a batch: a change that is not an insert, of another type,
        /// to an object inserted before in the batch, or without every property in the columns' order.
        ///
        /// - Throws: `.unsupportedType` for a type outside `types`, or a value that is not of its
        ///   property's type.
        init?(_ changes: [OutgoingChange], types: [String: SyncTypeSchema], keyTypes: [String: SyncType])
            throws(SyncError)
        {
            guard let typeName = changes.first?.typeName,
                changes.allSatisfy({ $0.kind == .insert && $0.typeName == typeName })
            else { return nil }
            guard let type = types[typeName] else {
                throw .unsupportedType("\(typeName) is not among this client's synced types")
            }
            let names = type.properties.map(\.name)
            var keys = Set<SyncValue>(minimumCapacity: changes.count)
            for change in changes {
                guard change.properties.count == names.count,
                    zip(change.properties, names).allSatisfy({ $0.name == $1 }),
                    keys.insert(change.primaryKey).inserted
                else { return nil }
            }
            self.init(type, capacity: changes.count, keyTypes: keyTypes)
            for change in changes {
                for (index, property) in change.properties.enumerated() { try columns[index].append(property.value) }
                log.append(change)
                record(change.sequence)
            }
        }

        mutating func append(_ value: OutgoingScalar, column: Int) {
            guard failure == nil else { return }
            do {
                try columns[column].append(value)
            } catch {
                failure = error
            }
        }

        mutating func insert(sequence: UInt64, key: UnsafeRawBufferPointer, payload: UnsafeRawBufferPointer) {
            log.appendInsert(typeName: table.type.name, key: key, payload: payload)
            record(sequence)
        }

        private mutating func record(_ sequence: UInt64) {
            // Objects the file gives come in key order, not the outbox's.
            sequences = (min(sequences?.first ?? sequence, sequence), max(sequences?.last ?? sequence, sequence))
        }
    }
#endif
