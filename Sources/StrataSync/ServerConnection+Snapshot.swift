#if Sync
    import Foundation
    import PostgresNIO
    @_spi(StrataSync) import Strata

    extension ServerConnection {
        /// Reads every object of `types` this role may see from the typed tables' images, as of one
        /// snapshot, and hands them to `body` as inserts, `pageSize` at a time (in primary key order,
        /// each page one query: memory stays flat however many objects there are). Returns the last
        /// sequence number the snapshot holds: every change up to it is in the objects read, none after.
        ///
        /// A row without an image (written by another program, not by a sync client) is not sent; nor
        /// is an object of a type in `conditions` that does not match its condition (SQL over `t`).
        func snapshot(
            types: [SyncTypeSchema], keyTypes: [String: SyncType], conditions: [String: String] = [:], pageSize: Int,
            isolation: isolated (any Actor)? = #isolation,
            _ body: ([IncomingChange]) async throws(SyncError) -> Void
        ) async throws(SyncError) -> Int64 {
            // One snapshot for all: the sequence's last number is the last push it sees (a push holds
            // the sequence's row until it commits).
            try await execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            do throws(SyncError) {
                let last: [Int64] = try await rows("SELECT last_seq FROM strata.sequence WHERE id = 1", as: Int64.self)
                let snapshot = last.first ?? 0
                for type in types where conditions[type.name] != "FALSE" {
                    try await readImages(
                        of: type, keyTypes: keyTypes, condition: conditions[type.name], pageSize: pageSize,
                        snapshot: snapshot, body)
                }
                try await execute("COMMIT")
                return snapshot
            } catch {
                _ = try? await execute("ROLLBACK")
                throw error
            }
        }

        private func readImages(
            of type: SyncTypeSchema, keyTypes: [String: SyncType], condition: String?, pageSize: Int, snapshot: Int64,
            isolation: isolated (any Actor)? = #isolation,
            _ body: ([IncomingChange]) async throws(SyncError) -> Void
        ) async throws(SyncError) {
            guard let keyProperty = type.properties.first(where: { $0.name == type.primaryKey }) else { return }
            let reader = ImagePages(
                connection: self, type: type, keyType: ServerSchema.sqlType(keyProperty.type, keyTypes: keyTypes),
                condition: condition, pageSize: pageSize, snapshot: snapshot)
            // The next page is read (and decoded) while the caller applies this one: the server's
            // work and this process's overlap (two cores).
            var next = Task { await reader.page(after: nil) }
            while true {
                let page = try await next.value.get()
                if let last = page.lastKey { next = Task { await reader.page(after: last) } }
                do {
                    try await body(page.changes)
                } catch {
                    if page.lastKey != nil { _ = await next.value }  // the connection is free again
                    throw error
                }
                guard page.lastKey != nil else { return }
            }
        }
    }

    /// Reads a type's images page by page, in primary key order.
    private struct ImagePages: Sendable {
        struct Page: Sendable {
            var changes: [IncomingChange]
            /// The last key read, when the page was full (there may be more).
            var lastKey: String?
        }

        let connection: ServerConnection
        let type: SyncTypeSchema
        let keyType: String
        /// Which objects to read (SQL over `t`); nil: all.
        let condition: String?
        let pageSize: Int
        let snapshot: Int64

        func page(after: String?) async -> Result<Page, SyncError> {
            do throws(SyncError) {
                let key = ServerSchema.quoted(type.primaryKey)
                var binds = PostgresBindings(capacity: 1)
                var tests: [String] = []
                if let after {
                    binds.append(after)
                    tests.append("t.\(key) > $1::\(keyType)")
                }
                if let condition = self.condition { tests.append("(\(condition))") }
                let condition = tests.isEmpty ? "" : "WHERE " + tests.joined(separator: " AND ") + " "
                // `t.key::text` named otherwise: ORDER BY would take the text column of the same name.
                let rows = try await connection.rows(
                    PostgresQuery(
                        unsafeSQL: """
                            SELECT t.\(key)::text AS key_text, t.\(ServerSchema.imageColumn) \
                            FROM \(ServerSchema.table(type.name)) AS t \(condition)ORDER BY t.\(key) LIMIT \(pageSize)
                            """, binds: binds),
                    as: (String, ByteBuffer?).self)
                var changes: [IncomingChange] = []
                changes.reserveCapacity(rows.count)
                var names = ChangePayload.Names()
                for (_, image) in rows {
                    guard let image else { continue }
                    changes.append(
                        IncomingChange(
                            sequence: snapshot, typeName: type.name, kind: .insert, key: [],
                            properties: try ChangePayload.decode(
                                Array(buffer: image), sequence: snapshot, names: &names)))
                }
                return .success(Page(changes: changes, lastKey: rows.count == pageSize ? rows.last?.0 : nil))
            } catch {
                return .failure(error)
            }
        }
    }
#endif
