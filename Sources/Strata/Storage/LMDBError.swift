import CLMDB

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A failure reported by LMDB: one of its own `MDB_*` codes, or an `errno` value from the system.
///
/// Matches LMDB 0.9.24's header (there is no `MDB_PROBLEM` in that release). Compare with the named
/// constants, or use them as patterns:
///
/// ```swift
/// catch let error as LMDBError where error == .mapFull { … }
/// switch error { case .readersFull: …; default: … }
/// ```
public struct LMDBError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The raw code: negative for LMDB's own errors, positive for `errno` values.
    public let code: Int32
    /// What Strata knew when the error happened (for `.readersFull`: who holds the reader slots).
    /// Not part of equality: `.readersFull` matches every `MDB_READERS_FULL`.
    public let detail: String?

    /// The error for an LMDB (`MDB_*`) or `errno` code.
    public init(code: Int32) {
        self.code = code
        detail = nil
    }

    init(code: Int32, detail: String) {
        self.code = code
        self.detail = detail
    }

    /// LMDB's own text for the code (`mdb_strerror`, which falls back to `strerror` for `errno`
    /// values), and the detail if there is one.
    public var description: String {
        "\(String(cString: mdb_strerror(code))) (\(code))" + (detail.map { ": \($0)" } ?? "")
    }

    /// Errors are equal when their codes are.
    public static func == (lhs: LMDBError, rhs: LMDBError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code alone, as equality compares it.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }

    /// Matches any error equal to `pattern`, so `catch LMDBError.mapFull` and `case .mapFull` work.
    public static func ~= (pattern: LMDBError, value: any Error) -> Bool {
        (value as? LMDBError) == pattern
    }

    /// `MDB_KEYEXIST`: key/data pair already exists.
    public static let keyExists = LMDBError(code: MDB_KEYEXIST)
    /// `MDB_NOTFOUND`: key/data pair not found.
    public static let notFound = LMDBError(code: MDB_NOTFOUND)
    /// `MDB_PAGE_NOTFOUND`: a requested page was not found; the file is damaged.
    public static let pageNotFound = LMDBError(code: MDB_PAGE_NOTFOUND)
    /// `MDB_CORRUPTED`: located page was the wrong type.
    public static let corrupted = LMDBError(code: MDB_CORRUPTED)
    /// `MDB_PANIC`: update of a meta page failed, or the environment had a fatal error.
    public static let panic = LMDBError(code: MDB_PANIC)
    /// `MDB_VERSION_MISMATCH`: the file was written by an incompatible LMDB version.
    public static let versionMismatch = LMDBError(code: MDB_VERSION_MISMATCH)
    /// `MDB_INVALID`: the file is not an LMDB data file.
    public static let invalid = LMDBError(code: MDB_INVALID)
    /// `MDB_MAP_FULL`: the environment's map size was reached.
    public static let mapFull = LMDBError(code: MDB_MAP_FULL)
    /// `MDB_DBS_FULL`: the environment's maximum number of named tables was reached.
    public static let dbsFull = LMDBError(code: MDB_DBS_FULL)
    /// `MDB_READERS_FULL`: every reader slot of the environment is in use.
    public static let readersFull = LMDBError(code: MDB_READERS_FULL)
    /// `MDB_TLS_FULL`: too many TLS keys in use.
    public static let tlsFull = LMDBError(code: MDB_TLS_FULL)
    /// `MDB_TXN_FULL`: the transaction has too many dirty pages.
    public static let txnFull = LMDBError(code: MDB_TXN_FULL)
    /// `MDB_CURSOR_FULL`: cursor stack too deep (internal error).
    public static let cursorFull = LMDBError(code: MDB_CURSOR_FULL)
    /// `MDB_PAGE_FULL`: page has no more space (internal error).
    public static let pageFull = LMDBError(code: MDB_PAGE_FULL)
    /// `MDB_MAP_RESIZED`: another process grew the map beyond this environment's map size.
    public static let mapResized = LMDBError(code: MDB_MAP_RESIZED)
    /// `MDB_INCOMPATIBLE`: the operation is incompatible with the table's flags.
    public static let incompatible = LMDBError(code: MDB_INCOMPATIBLE)
    /// `MDB_BAD_RSLOT`: invalid reuse of a reader slot.
    public static let badReaderSlot = LMDBError(code: MDB_BAD_RSLOT)
    /// `MDB_BAD_TXN`: the transaction must abort, has a child, or is invalid.
    public static let badTransaction = LMDBError(code: MDB_BAD_TXN)
    /// `MDB_BAD_VALSIZE`: unsupported size of key, table name or data.
    public static let badValueSize = LMDBError(code: MDB_BAD_VALSIZE)
    /// `MDB_BAD_DBI`: the table handle was changed unexpectedly.
    public static let badTable = LMDBError(code: MDB_BAD_DBI)

    /// `ENOSPC`: no space left on the device.
    public static let noSpace = LMDBError(code: ENOSPC)
    /// `EIO`: an input/output error from the device.
    public static let inputOutput = LMDBError(code: EIO)
    /// `ENOMEM`: out of memory.
    public static let outOfMemory = LMDBError(code: ENOMEM)
    /// `EACCES`: permission denied.
    public static let permissionDenied = LMDBError(code: EACCES)
    /// `EINVAL`: an invalid argument reached LMDB.
    public static let invalidArgument = LMDBError(code: EINVAL)

    /// Whether the code says the file's contents cannot be trusted.
    var meansDamagedFile: Bool {
        self == .pageNotFound || self == .corrupted || self == .invalid || self == .versionMismatch
            || self == .panic
    }
}
