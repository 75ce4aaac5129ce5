#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Store {
    /// Deletes the file of `configuration` and the files that go with it (its lock file, and the copy
    /// an in-place compaction leaves when a crash interrupts it), as Realm's `deleteFiles(for:)` does.
    /// A configuration with `inMemoryIdentifier` names a file that exists only while a Store of it is
    /// open, so there is nothing to delete once none is.
    ///
    /// The file is deleted only while no Store, frozen snapshot or `DynamicStore` of this process and
    /// no other process has it open: the call holds the file to itself meanwhile, so no process opens
    /// it halfway (an opening waits, then creates a new, empty file).
    ///
    /// ```swift
    /// let configuration = Store.Configuration(
    ///     fileURL: URL(fileURLWithPath: "/tmp/cache.strata"), objectTypes: [Note.self])
    /// try Store.deleteFiles(for: configuration)
    /// let store = try Store(configuration: configuration)  // empty
    /// ```
    ///
    /// - Returns: whether there was a file to delete.
    /// - Throws: `.fileAccess` with code `EBUSY` when the file is open in this process or another
    ///   (nothing is deleted), with the system's code when a file exists but cannot be deleted;
    ///   `.invalidArgument` for a configuration without a file.
    /// - Warning: Release every Store of the file first, on every thread (and the frozen objects and
    ///   results, which keep their snapshot open): an instance kept alive anywhere keeps the file open.
    @discardableResult
    public static func deleteFiles(for configuration: Configuration) throws(StoreError) -> Bool {
        let options = try configuration.environmentOptions
        let location: (path: String, isInMemory: Bool)
        do {
            location = try configuration.resolvedLocation()
        } catch .fileAccess(_, let code) where code == ENOENT || code == ENOTDIR {
            return false  // no directory, so no file
        }
        return try StoreError.mapping {
            try EnvironmentRegistry.shared.deleteFiles(at: location.path, options: options)
        }
    }
}
