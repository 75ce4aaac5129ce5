/// What `Store.salvage(from:to:)` saved of a damaged file, and what it lost, type by type.
public struct SalvageReport: Sendable, Equatable, CustomStringConvertible {
    /// One type's rows.
    public struct TypeReport: Sendable, Equatable {
        /// The type's name, as the file's schema stores it.
        public let typeName: String
        /// Rows copied to the new file.
        public let saved: Int
        /// The primary keys (or row ids) of rows found damaged, as text.
        public let lostKeys: [String]
        /// Damaged pages left out, with the keys they would have held (their rows are lost, and their
        /// count is not known).
        public let lostRanges: [String]
    }

    /// The transaction the salvaged data is from (the newest one whose meta page was readable).
    public let transactionID: Int
    /// The types of the file's schema, by name.
    public let types: [TypeReport]

    /// Rows copied, over all types.
    public var savedRows: Int { types.reduce(0) { $0 + $1.saved } }
    /// Whether anything was found damaged.
    public var isComplete: Bool { types.allSatisfy { $0.lostKeys.isEmpty && $0.lostRanges.isEmpty } }

    /// One line per type: rows saved, keys lost (the first ten), damaged pages left out.
    public var description: String {
        types.map { type in
            var line = "\(type.typeName): \(type.saved) saved"
            if !type.lostKeys.isEmpty {
                line += ", \(type.lostKeys.count) lost (\(type.lostKeys.prefix(10).joined(separator: ", ")))"
            }
            if !type.lostRanges.isEmpty {
                line += "; damaged pages left out: \(type.lostRanges.joined(separator: "; "))"
            }
            return line
        }.joined(separator: "\n")
    }
}
