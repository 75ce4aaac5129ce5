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
            if var entry = entries[path] {
                let open = entry.environment.options
                let sameOptions =
                    open.syncMode == options.syncMode && open.readOnly == options.readOnly
                    && open.mapSize == options.mapSize
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
            let environment = try Environment(path: path, options: options, removeOnClose: files)
            entries[path] = Entry(environment: environment, leases: 1)
            return EnvironmentLease(environment, registry: self)
        }
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

    /// A lease on the environment of `path`. On the process's first open of the file, asks
    /// `shouldCompact` (total bytes, used bytes) and, if it agrees and no other process has the file
    /// open, replaces the file with a compacted copy first.
    ///
    /// - Throws: what `lease` throws; `.fileAccess` when the copy cannot be written or put in place.
    func lease(
        path: String, options: EnvironmentOptions, compactingIf shouldCompact: (Int, Int) -> Bool
    ) throws(StorageError) -> EnvironmentLease {
        let isFirstOpen = !isOpen(path)
        var lease: EnvironmentLease? = try self.lease(path: path, options: options)
        guard isFirstOpen, !options.readOnly, let environment = lease?.environment, !environment.isOpenInAnotherProcess
        else { return lease! }
        let usage = try environment.usage()
        guard shouldCompact(usage.totalBytes, usage.usedBytes) else { return lease! }
        let compacted = path + ".compacting"
        unlink(compacted)  // left by a crash during an earlier compaction
        try environment.copy(to: compacted, compact: true)
        lease = nil  // closes the environment: nothing else of this process holds it
        guard !isOpen(path), rename(compacted, path) == 0 else {
            let code = errno
            unlink(compacted)
            if isOpen(path) { return try self.lease(path: path, options: options) }  // opened meanwhile: keep as is
            throw .fileAccess(path: path, code: code)
        }
        return try self.lease(path: path, options: options)
    }

    /// Deletes the file at `path` and its lock file, unless this process has it open.
    ///
    /// - Returns: false when the file is open in this process (nothing was deleted).
    /// - Throws: `.fileAccess` when a file exists but cannot be deleted.
    func removeFile(at path: String) throws(StorageError) -> Bool {
        try entries.withLock { (entries) throws(StorageError) -> Bool in
            guard entries[path] == nil else { return false }
            for file in [path, path + "-lock"] where unlink(file) != 0 && errno != ENOENT {
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
