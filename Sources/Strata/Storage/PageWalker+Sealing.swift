/// The walk of an encrypted file: every sealed value opened (its tag checked) before it is checked
/// as a plain file's, and a salvaging walk's key checked against the file's record.
extension PageWalker {
    /// Checks the opened pair of `key` and `value` when the walked table seals them (true: checked);
    /// false when it keeps them clear, or holds duplicates (sealed like keys, checked where read). A
    /// salvaging walk counts a row that does not open as lost, not as the end of its page.
    ///
    /// - Throws: `.damaged` when a value does not open (outside a salvage).
    mutating func checkSealed(
        _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, kind: TreeKind,
        damaged: (String) -> StorageError
    ) throws(StorageError) -> Bool {
        switch kind {
        case .meta, .rows, .plain: break
        default: return false
        }
        if visitor == nil, let checked = try checkStored(key, value, kind: kind, damaged: damaged) { return checked }
        if try salvageBlocks(key, value, kind: kind, damaged: damaged) { return true }
        let pair: (key: [UInt8], value: [UInt8])?
        do {
            pair = try openSealed(key, value, damaged: damaged)
        } catch {
            guard let visitor else { throw error }
            if case .rows = kind {
                (openedKey(key) ?? Array(key)).withUnsafeBytes { visitor.row(currentTable, $0, value, false) }
            }
            return true
        }
        guard let pair else { return false }
        try pair.key.withBytes { (key) throws(StorageError) in
            try pair.value.withBytes { (value) throws(StorageError) in
                try checkValue(key, value, kind: kind, damaged: damaged, opened: true)
            }
        }
        return true
    }

    /// A salvage's reading of a type's blocks (`SealedBlockTable`): a key table's entries are noted, to
    /// name the rows of a block that does not open; a block that opens hands each of its rows on.
    /// False for any other table.
    private mutating func salvageBlocks(
        _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, kind: TreeKind,
        damaged: (String) -> StorageError
    ) throws(StorageError) -> Bool {
        #if Encryption
            guard let sealing, let visitor else { return false }
            if currentTable.hasPrefix(StrataFormat.blockKeyTablePrefix) {
                let typeTable = String(currentTable.dropFirst("keys.".count))
                let tag = sealing.policy(named: typeTable, duplicates: false).tag
                if Checksum.sealedRowLength(key: key, stored: value) == 8,
                    let opened = try? sealing.sealer.openKey(key, table: tag)
                {
                    blockKeys[SealedBlockTable.number(value), default: []].append(Array(opened))
                }
                return true
            }
            guard currentTable.hasPrefix(StrataFormat.rowTablePrefix), key.count == 8 else { return false }
            let number = SealedBlockTable.number(key)
            let keys = blockKeys.removeValue(forKey: number) ?? []
            let tag = sealing.policy(named: currentTable, duplicates: false).tag
            let block = (try? FileSealing.sealedPart(of: value)).flatMap {
                (try? sealing.sealer.openValue($0, table: tag, storedKey: key)).flatMap { opened in
                    opened.withUnsafeBytes { RowBlock(decoding: $0) }
                }
            }
            guard let block else {  // its rows are lost, named by the key table
                for lost in keys { lost.withUnsafeBytes { visitor.row(currentTable, $0, value, false) } }
                return true
            }
            for index in 0..<block.count {
                try block.withPair(at: index) { (rowKey, row) throws(StorageError) in
                    try checkValue(rowKey, row, kind: kind, damaged: damaged, opened: true)
                }
            }
            return true
        #else
            return false
        #endif
    }

    /// The opening check of a stored pair: its checksum of the stored key and sealed bytes, not its
    /// opening (which every read does; the checksum finds damaged bytes as a plain file's row seal
    /// does). Nil for what is still opened: a clear record, and the schema (a salvage reads it).
    ///
    /// - Throws: `.damaged` when the checksum does not match.
    private mutating func checkStored(
        _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, kind: TreeKind,
        damaged: (String) -> StorageError
    ) throws(StorageError) -> Bool? {
        #if Encryption
            guard !currentTable.isEmpty else { return nil }
            if case .meta = kind,
                FileSealing.isClearMetaKey(key) || key.elementsEqual(StrataFormat.schemaKey.utf8)
            {
                return nil
            }
            guard Checksum.rowSealMatches(key: key, stored: value) else {
                throw damaged("holds a sealed value whose checksum does not match its key and bytes")
            }
            if case .rows = kind { rowsChecked += 1 }
            return true
        #else
            return nil
        #endif
    }

    /// In an encrypted file, the key and value of `key`/`value` opened (nil when the walked table
    /// keeps them clear: the meta table's records opening needs, the unnamed table).
    ///
    /// - Throws: `.damaged` when they do not open.
    fileprivate func openSealed(
        _ key: UnsafeRawBufferPointer, _ value: UnsafeRawBufferPointer, damaged: (String) -> StorageError
    ) throws(StorageError) -> (key: [UInt8], value: [UInt8])? {
        #if Encryption
            guard let sealing, !currentTable.isEmpty else { return nil }
            let policy = sealing.policy(named: currentTable, duplicates: false)
            if !policy.sealsKeys, FileSealing.isClearMetaKey(key) { return nil }
            do {
                let plainKey = policy.sealsKeys ? Array(try sealing.sealer.openKey(key, table: policy.tag)) : Array(key)
                let plainValue = Array(
                    try sealing.sealer.openValue(FileSealing.sealedPart(of: value), table: policy.tag, storedKey: key))
                return (plainKey, plainValue)
            } catch {
                throw damaged("holds a sealed value that does not open (\(error))")
            }
        #else
            return nil
        #endif
    }

    /// `key` of the walked table opened, when its keys are sealed and it opens (to name a lost row).
    fileprivate func openedKey(_ key: UnsafeRawBufferPointer) -> [UInt8]? {
        #if Encryption
            guard let sealing else { return nil }
            let policy = sealing.policy(named: currentTable, duplicates: false)
            guard policy.sealsKeys, let opened = try? sealing.sealer.openKey(key, table: policy.tag) else { return nil }
            return Array(opened)
        #else
            return nil
        #endif
    }

    /// Once a salvaging walk has read the meta table: the sealing of an encrypted file from its record
    /// and `salvageKey`, and its schema opened.
    ///
    /// - Throws: `.encryption` for a key missing, wrong, or given for a plain file.
    mutating func openSalvagedFile() throws(StorageError) {
        switch (encryptionRecord, salvageKey) {
        case (nil, nil): return
        case (nil, _?): throw .encryption(path: path, .fileNotEncrypted)
        case (_?, nil): throw .encryption(path: path, .keyMissing)
        case (let record?, let key?):
            let opened = try FileSealing.checked(record: record, key: key, path: path)
            sealing = opened
            #if Encryption
                if let sealed = schema {
                    let policy = opened.policy(named: StrataFormat.metaTable, duplicates: false)
                    schema = sealed.withUnsafeBytes { value in
                        Array(StrataFormat.schemaKey.utf8).withUnsafeBytes { storedKey in
                            (try? opened.sealer.openValue(
                                FileSealing.sealedPart(of: value), table: policy.tag, storedKey: storedKey)).map(
                                    Array.init)
                        }
                    }
                }
            #endif
        }
    }
}
