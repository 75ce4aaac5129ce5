import Foundation

/// The ranges of the primary key or of an index that hold every row a predicate can match.
struct CandidatePlan {
    enum Source {
        case primaryKey
        case index(IndexBinding)
        /// The documents a full-text index finds for a query (`ranges` unused).
        case fullText(FullTextIndex, TextQuery)
    }

    let source: Source
    let ranges: [KeyRange]
}

extension CandidatePlan {
    /// The index access for `predicate`: the best of its top-level comparisons on the primary key or
    /// an indexed property (equality first, else the intersection of the ranges on one property).
    static func best(for predicate: Predicate, binding: TableBinding) -> CandidatePlan? {
        /// The first equality or `in` found: better than any range.
        var equality: CandidatePlan?
        var fullText: CandidatePlan?
        var rangesByColumn: [Int: (source: CandidatePlan.Source, range: KeyRange)] = [:]
        for conjunct in predicate.conjuncts {
            guard case .comparison(let comparison) = conjunct, let property = comparison.path.directProperty
            else { continue }
            let column = binding.columnOfProperty[property]
            if fullText == nil, let condition = comparison.fullText,
                let index = binding.derived.fullText.first(where: { $0.column == column })
            {
                fullText = CandidatePlan(source: .fullText(index, condition.query), ranges: [])
            }
            guard let access = comparison.access else { continue }
            let source: CandidatePlan.Source
            if column == binding.primaryKeyColumn {
                source = .primaryKey
            } else if let index = binding.indexes.first(where: { $0.column == column }) {
                source = .index(index)
            } else {
                continue
            }
            func encode(_ operand: Operand) -> [UInt8]? { encodedKey(operand, source: source, binding: binding) }
            switch access {
            case .equal(let operand):
                guard let key = encodedKey(operand, source: source, binding: binding, exact: true) else { continue }
                if equality == nil {
                    equality = CandidatePlan(
                        source: source, ranges: key.isEmpty ? [] : [KeyRange(lower: key, upper: key)])
                }
            case .oneOf(let operands):
                var ranges: [KeyRange] = []
                var complete = true
                for operand in operands {
                    guard let key = encodedKey(operand, source: source, binding: binding, exact: true) else {
                        complete = false
                        break
                    }
                    if !key.isEmpty { ranges.append(KeyRange(lower: key, upper: key)) }
                }
                if complete, equality == nil { equality = CandidatePlan(source: source, ranges: ranges) }
            case .range(let lower, let upper):
                var range = rangesByColumn[column]?.range ?? KeyRange()
                if let lower, let key = encode(lower) {
                    if range.lower.map({ $0.lexicographicallyPrecedes(key) }) ?? true { range.lower = key }
                }
                if let upper, let key = encode(upper) {
                    if range.upper.map({ key.lexicographicallyPrecedes($0) }) ?? true { range.upper = key }
                }
                rangesByColumn[column] = (source, range)
            }
        }
        if let equality { return equality }
        if let fullText { return fullText }
        guard let (_, chosen) = rangesByColumn.min(by: { $0.key < $1.key }) else { return nil }
        return CandidatePlan(source: chosen.source, ranges: [chosen.range])
    }

    /// The table key an operand stands for: a row key, or an index key. `exact` (equality) returns
    /// an empty key for a value no row can hold (a null primary key, an integer out of range).
    /// An operand that cannot be encoded as a key gives no plan: the query scans (nothing is lost).
    private static func encodedKey(
        _ operand: Operand, source: CandidatePlan.Source, binding: TableBinding, exact: Bool = false
    ) -> [UInt8]? {
        switch source {
        case .primaryKey:
            guard let bytes = operand.bytes, let type = binding.primaryKeyType else { return exact ? [] : nil }
            if type == .string { return [RowKey.stringTag] + bytes }  // raw: range bounds need not be UTF-8
            let key = bytes.withBytes { raw in try? KeyEncoding.rowKey(column: raw, type: type) }
            guard let key else { return exact ? [] : nil }
            return key.withBytes { Array($0) }
        case .fullText:
            return nil
        case .index(let index):
            var key: [UInt8] = []
            let encoded: Void? =
                if let bytes = operand.bytes {
                    bytes.withBytes { raw in try? KeyEncoding.indexKey(column: raw, type: index.type, into: &key) }
                } else {
                    try? KeyEncoding.indexKey(column: nil, type: index.type, into: &key)
                }
            return encoded == nil ? nil : key
        }
    }

    /// The rows of the plan's ranges, in row-key order, each once.
    func rows(of binding: TableBinding, in reader: RowReader) throws(StoreError) -> [(key: RowKey, row: RowView)] {
        var found: [(key: RowKey, row: RowView)] = []
        switch source {
        case .primaryKey:
            try reader.scanRanges(ranges, table: binding.table) { (key, value) throws(StoreError) in
                let rowKey = try reader.decodeRowKey(key, binding: binding)
                found.append((rowKey, try reader.storedRow(value, keyBytes: key, binding: binding, key: rowKey)))
            }
            found.sort { $0.key < $1.key }
            if ranges.count > 1 { found = found.uniqued() }
        case .index(let index):
            var keys: [RowKey] = []
            try reader.scanRanges(ranges, table: index.table) { (_, value) throws(StoreError) in
                keys.append(try reader.decodeRowKey(value, binding: binding))
            }
            keys.sort(by: <)
            var previous: RowKey?
            for key in keys where key != previous {
                previous = key
                guard let row = try reader.fetchRow(binding, key: key) else {
                    throw .corrupted(
                        "\(binding.name).\(index.property): the index names a missing row \(binding.describe(key))")
                }
                found.append((key, row))
            }
        case .fullText(let index, let query):
            let searcher = try reader.core.searcher(for: index)
            var keys: [RowKey] = []
            for occurrence in try searcher.documents(matching: query) {
                let stored = try searcher.storage.rowKey(of: occurrence.document, in: index)
                keys.append(
                    try stored.withBytes { (raw) throws(StoreError) in try reader.decodeRowKey(raw, binding: binding) })
            }
            if index.numbering != nil { keys.sort(by: <) }  // document order is key order for integer keys
            for key in keys {
                guard let row = try reader.fetchRow(binding, key: key) else {
                    throw index.damage("it names a missing row \(binding.describe(key))")
                }
                found.append((key, row))
            }
        }
        return found
    }
}

extension Array where Element == (key: RowKey, row: RowView) {
    /// Without repeated keys (the array is sorted by key).
    fileprivate func uniqued() -> [Element] {
        var result: [Element] = []
        for element in self where result.last?.key != element.key { result.append(element) }
        return result
    }
}
