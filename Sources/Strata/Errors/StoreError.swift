import Foundation

/// Everything a Strata API can report. Thrown with typed throws wherever no user closure is involved;
/// a failed call never leaves a partial write. `Docs/Errors.md` says when each case happens and what
/// to do.
///
/// ```swift
/// do {
///     try store.write { try store.add(person) }
/// } catch StoreError.alreadyExists(let key) {
///     print("\(key) is stored already; nothing was written")
/// }
/// ```
public enum StoreError: Error, Equatable, Sendable {
    /// A Store, or an object of it, was used off the thread or queue that opened it.
    case wrongThread
    /// The object was deleted by another thread, queue, actor or process (whatever API meets it:
    /// `delete`, `add`, `observe`, `freeze`, the reactive writes), or a `ThreadSafeReference` was made
    /// to a deleted object.
    case deletedInAnotherThread
    /// The object no longer names a stored object because of this Store: its own write deleted it, or
    /// `invalidate()` dropped it. Fetch it again by primary key.
    case invalidated
    /// `add` with policy `.error` found this primary key stored; nothing of the add was written. The
    /// key compares as its text (`.alreadyExists(primaryKey: "1")`) and knows its type.
    case alreadyExists(primaryKey: PrimaryKey)
    /// A change was attempted outside a write transaction.
    case notInWriteTransaction
    /// A write was begun while this thread already writes to the file.
    case alreadyInWriteTransaction
    /// The object is not managed by a Store.
    case notManaged
    /// A `ThreadSafeReference` was resolved a second time.
    case alreadyResolved
    /// The file's schema differs from the code's; the text lists every difference. The file is untouched.
    case migrationRequired(String)
    /// The models or the configuration do not fit (invalid model, type not in the schema, newer file).
    case schemaMismatch(String)
    /// Stored bytes cannot be what they claim; the text names what is damaged.
    case corrupted(String)
    /// The file's location cannot be created, read or written; `code` is the `errno`.
    case fileAccess(path: String, code: Int32)
    /// The write would make the file larger than `Configuration.maximumSize`; nothing of it is stored.
    case mapFull
    /// The Store is read-only.
    case readOnly
    /// An argument cannot be used; the text says which and why.
    case invalidArgument(String)
    /// The file's encryption and `Configuration.encryptionKey` disagree (a wrong or missing key, a key
    /// for a plain file, a build without the `Encryption` trait); nothing was written.
    case encryption(path: String, EncryptionFailure)
    /// Any other LMDB or system failure.
    case storage(LMDBError)

    init(_ error: LMDBError) {
        switch error {
        // The file outgrew this process's map (another process allows more) while other transactions
        // of this process kept it from adopting the larger one (`MapAdoption`).
        case .mapFull, .mapResized: self = .mapFull
        case _ where error.meansDamagedFile: self = .corrupted("LMDB reported: \(error)")
        default: self = .storage(error)
        }
    }

    /// A failure of the storage layer: the one mapping from its errors to the Store's.
    init(_ error: StorageError) {
        switch error {
        case .lmdb(let code): self.init(code)
        case .damaged(let damage): self = .corrupted(damage)
        case .fileAccess(let path, let code): self = .fileAccess(path: path, code: code)
        case .conflictingOptions(let reason): self = .invalidArgument(reason)
        case .encryption(let path, let failure): self = .encryption(path: path, failure)
        }
    }

    /// Any error of the layers below (or a `StoreError` passing through), as a StoreError.
    init(wrapping error: any Error) {
        switch error {
        case let error as StoreError: self = error
        case let error as LMDBError: self.init(error)
        case let error as StorageError: self.init(error)
        case let damage as RowDamage: self = .corrupted(damage.description)
        default: self = .corrupted("\(error)")
        }
    }

    /// Runs work of the layers below (`throws(LMDBError)`, `throws(StorageError)`…) and reports its
    /// failure as a StoreError: the one place those errors are mapped.
    ///
    /// ```swift
    /// let count = try StoreError.mapping { () throws(LMDBError) in try transaction.count(table) }
    /// ```
    @inline(__always)
    static func mapping<R: ~Copyable, E: Error>(_ body: () throws(E) -> R) throws(StoreError) -> R {
        do {
            return try body()
        } catch {
            throw StoreError(wrapping: error)
        }
    }
}

extension StoreError: LocalizedError {
    /// One sentence for people: what went wrong, with the path, key or damage it concerns.
    ///
    /// ```swift
    /// catch let error as StoreError { print(error.localizedDescription) }
    /// ```
    public var errorDescription: String? {
        switch self {
        case .wrongThread: "a Store or one of its objects was used off the thread that opened it"
        case .deletedInAnotherThread: "the object was deleted by another thread, queue, actor or process"
        case .invalidated: "the object was deleted by this Store's own write, or the Store was invalidated"
        case .alreadyExists(let key):
            "\(key.typeName.map { "a \($0)" } ?? "an object") with \(key.property.map { "\($0) " } ?? "primary key ")\(key) exists already"
        case .notInWriteTransaction: "changes need a write transaction"
        case .alreadyInWriteTransaction: "this thread is already in a write transaction"
        case .notManaged: "the object is not managed by a Store"
        case .alreadyResolved: "the ThreadSafeReference was resolved already"
        case .migrationRequired(let reason): "a migration is required: \(reason)"
        case .schemaMismatch(let reason): "the schema does not fit: \(reason)"
        case .corrupted(let damage): "damaged: \(damage)"
        case .fileAccess(let path, let code): "\(path): \(String(cString: strerror(code)))"
        case .mapFull: "the file reached Configuration.maximumSize; nothing of the write was stored"
        case .readOnly: "the Store is read-only"
        case .invalidArgument(let reason): reason
        case .encryption(let path, let failure): "\(path): \(failure)"
        case .storage(let error): "storage failure: \(error)"
        }
    }
}

extension StoreError {
    /// The primary key of an `.alreadyExists`: the key as a user would write it (`1`, `ann@example.com`)
    /// and the type it belongs to. Equal when the texts are equal, so a test can compare it with a
    /// string literal: `#expect(throws: StoreError.alreadyExists(primaryKey: "1"))`.
    public struct PrimaryKey: Equatable, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible,
        ExpressibleByStringInterpolation
    {
        /// The key as text.
        public let value: String
        /// The stored type's name, when known (`Person`).
        public let typeName: String?
        /// For a unique property's value (`@Persisted(unique: true)`), the property's name; nil for a
        /// primary key.
        public let property: String?

        /// A key of `typeName` (nil: not known), or a value of its unique `property`.
        public init(_ value: String, typeName: String? = nil, property: String? = nil) {
            self.value = value
            self.typeName = typeName
            self.property = property
        }

        /// A key from a literal (its type unknown): what tests compare with.
        public init(stringLiteral value: String) {
            self.init(value)
        }

        /// The key's text.
        public var description: String { value }

        /// `"1" (Person)`.
        public var debugDescription: String {
            "\"\(value)\"" + (typeName.map { " (\($0)\(property.map { ".\($0)" } ?? ""))" } ?? "")
        }

        /// Compares the texts only.
        public static func == (lhs: PrimaryKey, rhs: PrimaryKey) -> Bool {
            lhs.value == rhs.value
        }

        /// Hashes the text only, as `==` compares.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(value)
        }
    }
}

extension StoreError {
    /// `.corrupted` for damage found at `location` (`Person[1].name`, a table, a page): the one form
    /// of the message, "location: damage".
    static func damaged(at location: String, _ damage: any Error) -> StoreError {
        .corrupted("\(location): \(damage)")
    }
}
