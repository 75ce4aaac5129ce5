extension Store {
    /// What opening a file checks before anything reads it (`Configuration.openingCheck`).
    public enum OpeningCheck: Hashable, Sendable {
        /// Every page of every table and every row's checksum, once per process per version of the
        /// file (the check is skipped when the same file, unchanged since this process last checked
        /// it, is opened again). Damage present when the file is opened is then a thrown
        /// `.corrupted`, never a crash nor a wrong value later. Costs a read of the whole file: see
        /// Docs/Reliability.md for the figures.
        case full
        /// The meta pages and the table directory only (always checked). For large files whose
        /// integrity is assured otherwise: damage in a table's pages may then crash a later read.
        case minimal
    }
}
