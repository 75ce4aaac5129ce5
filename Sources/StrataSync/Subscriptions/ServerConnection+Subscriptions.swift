#if Sync
    import Foundation
    import PostgresNIO
    @_spi(StrataSync) import Strata

    extension ServerConnection {
        /// What a client of partial `type` should hold of the objects `keys` name (stored keys, with the
        /// sequence number of their last change the pull read), as the server's table has them now:
        /// each object that matches `condition` as an insert of its whole image; each that is gone or
        /// no longer matches as a delete (`leaving`). The images may be newer than the changes read: a
        /// later pull reads those changes again and sends what the table then holds.
        func currentObjects(
            of type: SyncTypeSchema, keys: [[UInt8]: Int64], condition: String, keyTypes: [String: SyncType]
        ) async throws(SyncError) -> (arriving: [IncomingChange], leaving: [IncomingChange]) {
            guard !keys.isEmpty else { return ([], []) }
            guard let key = type.properties.first(where: { $0.name == type.primaryKey }) else { return ([], []) }
            let keyColumn = "t." + ServerSchema.quoted(key.name)
            let keyMatch = ServerSchema.keyExpression(key.type).replacingOccurrences(of: "$key", with: "e.k")
            var binds = PostgresBindings(capacity: 1)
            binds.append(keys.keys.map { ByteBuffer(bytes: $0) })
            let rows = try await rows(
                PostgresQuery(
                    unsafeSQL: """
                        SELECT e.k, t.\(ServerSchema.imageColumn), coalesce(\(keyColumn) IS NOT NULL AND (\(condition)), false)
                        FROM unnest($1::bytea[]) AS e(k) LEFT JOIN \(ServerSchema.table(type.name)) AS t ON \(keyColumn) = \(keyMatch)
                        """, binds: binds),
                as: (ByteBuffer, ByteBuffer?, Bool).self)
            var arriving: [IncomingChange] = []
            var leaving: [IncomingChange] = []
            var names = ChangePayload.Names()
            for (storedKey, image, matches) in rows {
                let bytes = Array(buffer: storedKey)
                let sequence = keys[bytes] ?? 0
                if matches, let image {
                    arriving.append(
                        IncomingChange(
                            sequence: sequence, typeName: type.name, kind: .insert, key: bytes,
                            properties: try ChangePayload.decode(
                                Array(buffer: image), sequence: sequence, names: &names)))
                } else {
                    leaving.append(
                        IncomingChange(
                            sequence: sequence, typeName: type.name, kind: .delete, key: bytes, properties: []))
                }
            }
            return (arriving, leaving)
        }
    }
#endif
