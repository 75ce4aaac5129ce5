/// Messages of the traps: fixed, so they can be searched for in logs.
enum TrapMessage {
    static let wrongThread = "Strata: object or Store accessed from the wrong thread"
    static let invalidated = "Strata: object has been deleted or invalidated"
    static let notInWriteTransaction = "Strata: cannot modify a managed object outside of a write transaction"
    static let primaryKeyChange = "Strata: the primary key of a managed object cannot be changed"
    static let corrupted = "Strata: corrupted row"
    static let frozen = "Strata: frozen objects cannot be modified; thaw() them first"
}
