/// Why a Store could not use its encryption key (`StoreError.encryption`). Nothing was written.
public enum EncryptionFailure: Error, Equatable, Hashable, Sendable, CustomStringConvertible {
    /// The file is encrypted and the configuration has no `encryptionKey`.
    case keyMissing
    /// The key does not open the file: another key, or the file's key record is damaged.
    case wrongKey
    /// The configuration has a key, and the file is not encrypted (`writeCopy(to:encryptionKey:)`
    /// makes an encrypted copy of it).
    case fileNotEncrypted
    /// An encryption key has 64 bytes.
    case invalidKeyLength(Int)
    /// This build of Strata has no encryption: enable the package trait `Encryption`.
    case notBuiltWithEncryption

    /// What went wrong, in a sentence (`StoreError.errorDescription` prefixes the path).
    public var description: String {
        switch self {
        case .keyMissing: "the file is encrypted: its Configuration needs the encryptionKey"
        case .wrongKey: "the encryptionKey does not open the file (another key, or a damaged key record)"
        case .fileNotEncrypted: "the file is not encrypted, and the Configuration has an encryptionKey"
        case .invalidKeyLength(let count): "an encryptionKey has 64 bytes, not \(count)"
        case .notBuiltWithEncryption:
            "this build of Strata has no encryption: enable the package trait Encryption (traits: [\"Encryption\"])"
        }
    }
}
