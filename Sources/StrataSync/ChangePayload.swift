#if Sync
    @_spi(StrataSync) import Strata

    /// A change's payload (`ChangePayload`, made by the sending file) as read from the server.
    extension ChangePayload {
        /// - Throws: `SyncError.server` when the bytes are not a payload (nothing of the batch is applied).
        static func decode(_ bytes: [UInt8], sequence: Int64, names: inout Names) throws(SyncError)
            -> [IncomingChange.Property]
        {
            do {
                return try decode(bytes, names: &names)
            } catch {
                throw .server(sqlState: nil, message: "change \(sequence): \(error.message)")
            }
        }

        /// - Throws: `SyncError.server` when the bytes are not a payload (nothing of the batch is applied).
        static func decode(_ bytes: [UInt8], sequence: Int64) throws(SyncError) -> [IncomingChange.Property] {
            var names = Names()
            return try decode(bytes, sequence: sequence, names: &names)
        }
    }
#endif
