/// Everything a Strata API can report. Thrown with typed throws wherever no user closure is involved.
public enum StoreError: Error, Equatable, Sendable {
    case wrongThread
    case deletedInAnotherThread
    case alreadyExists(primaryKey: String)
    case notInWriteTransaction
    case alreadyInWriteTransaction
    case notManaged
    case migrationRequired(String)
    case schemaMismatch(String)
    case corrupted(String)
    case fileAccess(path: String, code: Int32)
    case mapFull
    case readOnly
    case invalidArgument(String)
    case storage(LMDBError)

    init(_ error: LMDBError) {
        switch error {
        case .mapFull: self = .mapFull
        case _ where error.meansDamagedFile: self = .corrupted("LMDB reported: \(error)")
        default: self = .storage(error)
        }
    }
}
