/// What the storage layer reports beside LMDB's own codes. The layers above see these as
/// `StoreError` through one mapping (`StoreError.mapping`).
enum StorageError: Error, Equatable, Sendable {
    /// An LMDB call failed.
    case lmdb(LMDBError)
    /// The file's bytes cannot be what they claim (a page, a meta page, the file's length); the text
    /// names the path and the damage.
    case damaged(String)
    /// The file cannot be created, read or written (`code` is the errno).
    case fileAccess(path: String, code: Int32)
    /// The file is open in this process with other options.
    case conflictingOptions(String)
    /// The file's encryption and the key given do not agree.
    case encryption(path: String, EncryptionFailure)
}
