#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Hands out one `Environment` per file per process. LMDB must not be opened twice in one process:
/// POSIX releases a process's file locks when any descriptor of the file closes, so a second `MDB_env`
/// on the same file would silently break the first one's locking.
///
/// Opening and the final close happen under one lock, so a file is never open twice, even briefly.
final class EnvironmentRegistry: Sendable {
    static let shared = EnvironmentRegistry()

    private struct Entry {
        let environment: Environment
        var leases: Int
    }

    private let entries = Locked<[String: Entry]>([:])

    /// A lease on the environment for `path`, opening it on first use.
    ///
    /// - Throws: `.conflictingOptions` when the file is already open in this process with other options
    ///   (durability, read-only, maximum size), and whatever `Environment.init` throws.
    /// A temporary file (`temporary: true`: an in-memory store's) starts empty and is deleted, with its
    /// lock file, when the environment closes. With `joiningAnyOptions`, a file already open in the
    /// process is joined whatever its options (tools reading a file the app has open).
    func lease(
        path: String, options: EnvironmentOptions, temporary: Bool = false, joiningAnyOptions: Bool = false
    ) throws(StorageError) -> EnvironmentLease {
        try entries.withLock { entries throws(StorageError) -> EnvironmentLease in
            try lease(
                path: path, options: options, temporary: temporary, joiningAnyOptions: joiningAnyOptions,
                in: &entries)
        }
    }

    private func lease(
        path: String, options: EnvironmentOptions, temporary: Bool = false, joiningAnyOptions: Bool = false,
        in entries: inout [String: Entry]
    ) throws(StorageError) -> EnvironmentLease {
        if var entry = entries[path] {
            let open = entry.environment.options
            let sameOptions =
                open.syncMode == options.syncMode && open.readOnly == options.readOnly
                && open.mapSize == options.mapSize
            if open.encryptionKey != options.encryptionKey, !options.readsSealedBytes {
                // The same file's second opening in the process is held to the same key as the first.
                let failure: EncryptionFailure =
                    options.encryptionKey == nil
                    ? .keyMissing : entry.environment.sealing == nil ? .fileNotEncrypted : .wrongKey
                throw .encryption(path: path, failure)
            }
            guard joiningAnyOptions || sameOptions else {
                throw .conflictingOptions(
                    "\(path) is already open in this process with other options "
                        + "(durability, readOnly and maximumSize must match)")
            }
            entry.leases += 1
            entries[path] = entry
            return EnvironmentLease(entry.environment, registry: self)
        }
        let files = temporary ? [path, path + "-lock"] : []
        for file in files { unlink(file) }  // a file left by a crashed process with the same pid
        return register(try Environment(path: path, options: options, removeOnClose: files), in: &entries)
    }

    private func register(_ environment: Environment, in entries: inout [String: Entry]) -> EnvironmentLease {
        entries[environment.path] = Entry(environment: environment, leases: 1)
        return EnvironmentLease(environment, registry: self)
    }

    fileprivate func release(_ environment: Environment) {
        // Close inside the lock, so that a concurrent open of the same path waits for the close.
        entries.withLock { entries in
            guard var entry = entries[environment.path] else { return }
            entry.leases -= 1
            if entry.leases == 0 {
                entries[environment.path] = nil
                environment.close()
            } else {
                entries[environment.path] = entry
            }
        }
    }

    /// A lease on the environment of `path`. On the process's first open of the file, when no other
    /// process has it open, asks `shouldCompact` (total bytes, used bytes) and, if it agrees, replaces
    /// the file with a compacted copy first. Processes that open the file meanwhile wait (`FileUse`).
    ///
    /// - Throws: what `lease` throws; `.fileAccess` when the copy cannot be written or put in place.
    func lease(
        path: String, options: EnvironmentOptions, compactingIf shouldCompact: (Int, Int) -> Bool
    ) throws(StorageError) -> EnvironmentLease {
        // Under the registry's lock throughout: this process's other opens of the file wait too.
        try entries.withLock { entries throws(StorageError) -> EnvironmentLease in
            guard entries[path] == nil, !options.readOnly,
                let use = FileUse.exclusive(path: path, options: options)
            else { return try lease(path: path, options: options, in: &entries) }
            var opened: Environment?
            do throws(StorageError) {
                let environment = try Environment(path: path, options: options, use: use)
                opened = environment
                // A process that takes no `FileUse` (another LMDB program) still shows in LMDB's lock.
                guard !environment.isOpenInAnotherProcess else {
                    use.share()
                    return register(environment, in: &entries)
                }
                let usage = try environment.usage()
                guard shouldCompact(usage.totalBytes, usage.usedBytes) else {
                    use.share()
                    return register(environment, in: &entries)
                }
                _ = try Self.replaceWithCompactedCopy(environment, use: use)
                use.share()
                return register(try Environment(path: path, options: options, use: use), in: &entries)
            } catch {
                opened?.closeKeepingUse()
                use.end()  // no environment of the file is open in this process now
                throw error
            }
        }
    }

    /// Replaces the file at `path` with a compacted copy of itself, when no process has it open (this
    /// one included); processes that open it meanwhile wait until it is replaced (`FileUse`).
    /// Returns the file's size before and after.
    ///
    /// - Throws: `.fileAccess` with `EBUSY` when a process has the file open, `.fileAccess` when the copy
    ///   cannot be written or put in place (the original is then left as it was), what
    ///   `Environment.init` throws.
    func compactInPlace(path: String, options: EnvironmentOptions) throws(StorageError) -> (Int, Int) {
        try entries.withLock { entries throws(StorageError) -> (Int, Int) in
            guard entries[path] == nil, let use = FileUse.exclusive(path: path, options: options) else {
                throw .fileAccess(path: path, code: EBUSY)
            }
            defer { use.end() }  // after the environment closed
            let environment = try Environment(path: path, options: options, use: use)
            guard !environment.isOpenInAnotherProcess else {
                environment.closeKeepingUse()
                throw .fileAccess(path: path, code: EBUSY)
            }
            return try Self.replaceWithCompactedCopy(environment, use: use)
        }
    }

    #if DEBUG
        /// Tests: runs with the file's path once its compacted copy is written, before the copy
        /// replaces it.
        static let beforeReplacingHook = Locked<(@Sendable (String) -> Void)?>(nil)
    #endif

    /// Writes a compacted copy of `environment`'s file beside it, closes `environment`, and renames
    /// the copy over the file. `use` holds the file exclusively (no process can open the original and
    /// commit to it meanwhile) and stays with the caller.
    private static func replaceWithCompactedCopy(
        _ environment: Environment, use: FileUse
    ) throws(StorageError) -> (Int, Int) {
        let path = environment.path
        let compacted = path + ".compacting"
        unlink(compacted)  // left by a crash during an earlier compaction
        let before = fileSize(atPath: path) ?? 0
        defer { environment.closeKeepingUse() }
        try environment.copy(to: compacted, compact: true)
        #if DEBUG
            beforeReplacingHook.withLock { $0 }?(path)
        #endif
        environment.closeKeepingUse()  // before the file is replaced
        guard rename(compacted, path) == 0 else {
            let code = errno
            unlink(compacted)
            throw .fileAccess(path: path, code: code)
        }
        return (before, fileSize(atPath: path) ?? 0)
    }

    /// Deletes the file at `path`, its lock file and the copy an in-place compaction a crash
    /// interrupted may have left (`PATH.compacting`), while holding the file to this process alone
    /// (`FileUse.exclusive`), so no other process has it open or opens it meanwhile.
    ///
    /// - Returns: whether any of those files existed (and was deleted).
    /// - Throws: `.fileAccess` with `EBUSY` when this process or another has the file open, and with
    ///   the system's code when a file exists but cannot be deleted.
    func deleteFiles(at path: String, options: EnvironmentOptions) throws(StorageError) -> Bool {
        let files = [path, path + "-lock", path + ".compacting"]
        guard files.contains(where: { access($0, F_OK) == 0 }) else { return false }
        return try entries.withLock { (entries) throws(StorageError) -> Bool in
            guard entries[path] == nil else { throw .fileAccess(path: path, code: EBUSY) }
            guard let use = FileUse.exclusive(path: path, options: options) else {
                throw .fileAccess(path: path, code: EBUSY)
            }
            defer { use.end() }
            for file in files where unlink(file) != 0 && errno != ENOENT {
                throw .fileAccess(path: file, code: errno)
            }
            return true
        }
    }

    /// Whether `path` is open in this process.
    func isOpen(_ path: String) -> Bool {
        entries.withLock { $0[path] != nil }
    }

    /// The canonical form of a file path: its directory with symbolic links resolved, plus its name.
    ///
    /// - Throws: `.fileAccess` when the directory does not exist or cannot be resolved.
    static func canonicalPath(_ path: String) throws(StorageError) -> String {
        if let resolved = realpath(path, nil) {
            defer { free(resolved) }
            return String(cString: resolved)
        }
        let slash = path.lastIndex(of: "/")
        let directory = slash.map { path[..<$0] }.map(String.init) ?? "."
        let name = slash.map { path[path.index(after: $0)...] }.map(String.init) ?? path
        guard let resolved = realpath(directory.isEmpty ? "/" : directory, nil) else {
            throw .fileAccess(path: path, code: errno)
        }
        defer { free(resolved) }
        let base = String(cString: resolved)
        return base == "/" ? "/" + name : base + "/" + name
    }
}

/// Keeps an `Environment` open; the environment closes when its last lease ends.
final class EnvironmentLease: Sendable {
    let environment: Environment
    private let registry: EnvironmentRegistry

    fileprivate init(_ environment: Environment, registry: EnvironmentRegistry) {
        self.environment = environment
        self.registry = registry
    }

    deinit {
        registry.release(environment)
    }
}
