import Foundation

extension Store {
    /// What `Configuration.migration` runs: the migration, and the file's schema version before it
    /// (Realm's `MigrationBlock`).
    public typealias MigrationBlock = @Sendable (_ migration: Migration, _ oldVersion: UInt64) throws -> Void
}

extension Store {
    /// How commits reach the disk.
    public enum Durability: Hashable, Sendable {
        /// Every commit is flushed (data and meta page) before `commitWrite` returns. Survives power loss.
        case full
        /// The meta page is not flushed: a power loss can undo the last commit, never corrupt the file.
        case noMetaSync
        /// Nothing is flushed: the OS writes when it likes. A crash of the process loses nothing; a
        /// power loss can lose recent commits, never corrupt the file.
        case noSync
    }

    /// How `add` treats an object whose primary key is already stored.
    public enum UpdatePolicy: Hashable, Sendable {
        /// Fail with `.alreadyExists`; nothing of the add is written.
        case error
        /// Update the stored object, writing only if a property differs.
        case modified
        /// Rewrite every property of the stored object.
        case all
    }

    /// Where a Store's data lives and how it is opened.
    ///
    /// ```swift
    /// var config = Store.Configuration(fileURL: dir.appendingPathComponent("app.strata"))
    /// config.objectTypes = [Person.self, Dog.self]
    /// config.durability = .noMetaSync
    /// let store = try Store(configuration: config)
    /// ```
    public struct Configuration: Sendable {
        /// The default `maximumSize`: 64 GiB of address space, reserved, not allocated (the file grows
        /// only as pages are used).
        public static let defaultMaximumSize = 64 << 30

        /// The data file (its lock file is created beside it, named with a "-lock" suffix).
        public var fileURL: URL?
        /// Makes the Store in-memory, shared in the process by this identifier, and gone when the last
        /// Store on it closes. When set, `fileURL` is ignored.
        public var inMemoryIdentifier: String?
        /// The model types. Types reached through links are added automatically.
        public var objectTypes: [Object.Type]
        /// The version of the schema; a file written with a higher version cannot be opened.
        public var schemaVersion: UInt64 = 0
        /// The most the file may hold, in bytes; a write that would exceed it fails with `.mapFull`.
        public var maximumSize: Int = defaultMaximumSize
        /// How commits reach the disk (`.full`: each is flushed before `commitWrite` returns).
        public var durability: Durability = .full
        /// Permissions of a new file and of its lock file: readable and writable by the owner only,
        /// unless set here (the process's umask still applies). Files that exist keep theirs.
        public var filePermissions: UInt16 = 0o600
        /// Opens the file read-only: writes throw `.readOnly`.
        public var readOnly = false
        /// The key of an encrypted file: 64 bytes, as Realm's. A new file is made encrypted with it;
        /// an existing one must have been made with it (Docs/Encryption.md says what it protects).
        /// Needs the package trait `Encryption`.
        ///
        /// ```swift
        /// var config = Store.Configuration(fileURL: url, objectTypes: [Note.self])
        /// config.encryptionKey = key  // 64 bytes, kept in a secret store, never beside the file
        /// let store = try Store(configuration: config)
        /// ```
        ///
        /// A missing or wrong key, a key for a plain file, and a build without the trait are
        /// `StoreError.encryption` at open, with nothing written.
        public var encryptionKey: Data?
        /// What opening checks of the file: `.full` (every page and row, once per process per version
        /// of the file) keeps the promise that a damaged file is a typed error, never a crash.
        public var openingCheck: OpeningCheck = .full
        /// Runs when the file's schema version is lower than `schemaVersion`, inside the write that
        /// brings the file to the code's schema (see `Migration`). Receives the file's old version.
        /// Added and removed properties and types, and changed indexes, need no block, only a higher
        /// `schemaVersion` (index changes need not even that); neither do properties made optional or
        /// widened (`Int32` → `Int`), which keep their values.
        public var migration: MigrationBlock?
        /// Deletes the file and starts empty instead of throwing `.migrationRequired`, as
        /// `Store.deleteFiles(for:)` deletes it: while another Store of the process or another process
        /// has the file open, it is kept and `.migrationRequired` thrown.
        ///
        /// - Warning: Every object in the file is lost; for caches only.
        public var deleteStoreIfMigrationNeeded = false
        /// The size of the file's table of reader slots (LMDB's `mdb_env_set_maxreaders`). Each live
        /// Store (one per thread, queue or actor), each frozen version and each commit kept for
        /// notifications holds a slot while it lives, in every process that has the file open; when
        /// none is left, opening a snapshot throws `.storage(.readersFull)`, whose description says
        /// who holds them.
        ///
        /// The default, 1,024, is LMDB's 126 made room for servers (a `StorePool`'s queues and an
        /// actor per connection, each with a Store, plus frozen versions handed between tasks). A
        /// slot costs 64 bytes of the lock file, and LMDB only walks the slots used so far, so room
        /// not used costs nothing at commit. The table's size is fixed by the first process to open
        /// the file (while no other has it open); later ones use that size.
        public var maximumReaders: Int = Int(EnvironmentOptions.defaultMaxReaders)
        /// The most threads one query's walk over a table uses, the calling thread included: a count,
        /// a sum, `values(of:)`, a sorted first page (`prefix(_:)`) or a `distinct(by:)` on one number,
        /// over a table of 50,000 objects or more, is cut into key ranges that helper threads walk at
        /// once, each through a read transaction of its own at the Store's version (a reader slot each
        /// while it runs). Set 1 to keep every query on the calling thread. The default is the number
        /// of active cores.
        ///
        /// The result is the one a walk on one thread gives (a `Double` sum adds the ranges' sums, so
        /// its last bits may differ from adding the values one by one). A helper that cannot read the
        /// Store's version (a commit came first, no reader slot is free) leaves its ranges to the
        /// calling thread. Inside a write, queries always run on the calling thread.
        public var maximumQueryThreads: Int = ProcessInfo.processInfo.activeProcessorCount
        /// The most memory, in bytes, that the copies of columns kept for repeated queries hold, for
        /// all the Stores of the file in this process (a Store applies its own limit when it keeps a
        /// copy). A first page of a sort by a number, date or Bool over a whole table
        /// (`sorted(by:)` then `prefix(_:)`), asked a second time while the table has not changed,
        /// copies that column (each object's value and key: 16 bytes an object with an Int key) and is read
        /// from the copy from then on, until a commit changes the table, in any process (each
        /// table's change stamp, counted up in the file by every commit that changes it, tells).
        /// The least used copies are dropped first. Set 0 to keep no copy. The default is 64 MiB.
        ///
        /// ```swift
        /// var configuration = Store.Configuration(fileURL: url, objectTypes: [Dog.self])
        /// configuration.columnCopyLimit = 0  // no memory for copies: every first page walks the rows
        /// ```
        ///
        /// - Warning: Strata builds made before change stamps do not count them up: while a process
        ///   running one writes to the file, set 0 in the processes that query it.
        public var columnCopyLimit: Int = 64 << 20
        /// Asked when the file is first opened in the process, with its size and the bytes its data
        /// uses: return true to compact it (a copy without free pages replaces it) before use.
        /// Skipped when another process has the file open; a process that opens the file while it is
        /// compacted waits until the copy has replaced it.
        public var shouldCompactOnLaunch: (@Sendable (_ totalBytes: Int, _ usedBytes: Int) -> Bool)?

        /// A store in the file at `fileURL`, created when it does not exist (its directory must).
        public init(fileURL: URL, objectTypes: [Object.Type] = []) {
            self.fileURL = fileURL
            self.objectTypes = objectTypes
        }

        /// An in-memory store, shared in the process by `inMemoryIdentifier`.
        public init(inMemoryIdentifier: String, objectTypes: [Object.Type] = []) {
            self.inMemoryIdentifier = inMemoryIdentifier
            self.objectTypes = objectTypes
        }

        /// What identifies "the same configuration" for the per-thread Store cache.
        struct Signature: Hashable {
            let types: [ObjectIdentifier]
            let schemaVersion: UInt64
            let maximumSize: Int
            let durability: Durability
            let readOnly: Bool
            /// Another key is another Store: its opening checks the key against the file.
            let encryptionKey: Data?
        }

        var signature: Signature {
            Signature(
                types: objectTypes.map(ObjectIdentifier.init), schemaVersion: schemaVersion, maximumSize: maximumSize,
                durability: durability, readOnly: readOnly, encryptionKey: encryptionKey)
        }

        /// The file to open, and whether it is an in-memory store's (started afresh, deleted on close).
        ///
        /// - Throws: `.invalidArgument` for a configuration without location or with a non-file URL,
        ///   `.fileAccess` when the directory cannot be resolved.
        func resolvedLocation() throws(StoreError) -> (path: String, isInMemory: Bool) {
            if let identifier = inMemoryIdentifier {
                return (Self.inMemoryPath(identifier), true)
            }
            guard let fileURL else {
                throw .invalidArgument("the configuration has neither fileURL nor inMemoryIdentifier")
            }
            guard fileURL.isFileURL else { throw .invalidArgument("\(fileURL) is not a file URL") }
            return (try StoreError.mapping { try EnvironmentRegistry.canonicalPath(fileURL.path) }, false)
        }

        /// - Throws: `.invalidArgument` when `maximumSize` is too small to hold a store.
        /// What the schema layer needs to bind the model types to the file.
        var schemaRequirements: SchemaRequirements {
            SchemaRequirements(
                schemaVersion: schemaVersion, migration: migration,
                deletesFileNeedingMigration: deleteStoreIfMigrationNeeded)
        }

        var environmentOptions: EnvironmentOptions {
            get throws(StoreError) {
                guard maximumSize >= 64 << 10 else {
                    throw .invalidArgument("maximumSize \(maximumSize) is below the minimum of 64 KiB")
                }
                let pageRounded = (maximumSize + 4095) / 4096 * 4096
                let syncMode: SyncMode =
                    switch inMemoryIdentifier != nil ? .noSync : durability {
                    case .full: .full
                    case .noMetaSync: .noMetaSync
                    case .noSync: .noSync
                    }
                guard (1...(1 << 20)).contains(maximumReaders) else {
                    throw .invalidArgument("maximumReaders \(maximumReaders) is not between 1 and 1,048,576")
                }
                guard filePermissions <= 0o777 else {
                    throw .invalidArgument(
                        "filePermissions 0o\(String(filePermissions, radix: 8)) has bits beyond 0o777")
                }
                return EnvironmentOptions(
                    mapSize: pageRounded, syncMode: syncMode, readOnly: readOnly, maxReaders: UInt32(maximumReaders),
                    fileMode: mode_t(filePermissions),
                    checksEveryPage: openingCheck == .full, encryptionKey: encryptionKey.map(Array.init))
            }
        }

        private static func inMemoryPath(_ identifier: String) -> String {
            let directory =
                access("/dev/shm", W_OK) == 0 ? "/dev/shm" : FileManager.default.temporaryDirectory.path
            let hash = FNV1a.hash(identifier.utf8)  // a short, stable file name for any identifier
            let readable = identifier.unicodeScalars.filter { $0.properties.isAlphabetic || ("0"..."9").contains($0) }
            return "\(directory)/strata-memory-\(getpid())-\(String(String.UnicodeScalarView(readable.prefix(32))))-"
                + String(hash, radix: 16)
        }
    }
}
