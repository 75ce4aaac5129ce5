extension Results {
    /// The condition these Results select by, as data (`SyncCondition`): what StrataSync hands its
    /// server for a subscription. Every `where` stage counts, in either form (closure or string).
    ///
    /// - Throws: `.invalidArgument` naming what has no such form: a sort, `distinct` or limit (a
    ///   subscription selects objects, it does not order them), a `filter` closure, a List's objects,
    ///   or a condition through a link, on a collection, a Map's key or a mixed value (only the type's
    ///   own stored values).
    @_spi(StrataSync)
    public func syncCondition() throws(StoreError) -> SyncCondition {
        var condition: SyncCondition?
        for stage in stages {
            guard case .predicate(let predicate) = stage else {
                throw .invalidArgument(
                    "\(binding.name): only where { } conditions can be sent to a server (not a sort, distinct, "
                        + "limit, filter or a List's objects)")
            }
            let converted = try syncCondition(of: predicate)
            condition = condition.map { .and($0, converted) } ?? converted
        }
        return condition ?? .constant(true)
    }

    private func syncCondition(of predicate: Predicate) throws(StoreError) -> SyncCondition {
        switch predicate {
        case .constant(let value): return .constant(value)
        case .and(let lhs, let rhs): return .and(try syncCondition(of: lhs), try syncCondition(of: rhs))
        case .or(let lhs, let rhs): return .or(try syncCondition(of: lhs), try syncCondition(of: rhs))
        case .not(let inner): return .not(try syncCondition(of: inner))
        case .collection(let condition):
            throw .invalidArgument("\(condition.text): a server evaluates conditions on a type's own values only")
        case .comparison(let comparison):
            if comparison.fullText != nil {
                throw .invalidArgument("\(comparison.text): full-text search runs on the device, not on a server")
            }
            guard let form = comparison.form, let syncOperator = Self.syncOperator(form.operator),
                let column = comparison.path.directProperty,
                comparison.path.steps[0].schema.name == binding.name
            else {
                throw .invalidArgument("\(comparison.text): a server evaluates conditions on a type's own values only")
            }
            let type = binding.columnTypes[column]
            switch type.unwrapped {
            case .link, .list, .set, .map, .mixed:
                throw .invalidArgument("\(comparison.text): \(type) values are not compared on a server")
            default: break
            }
            let values: [SyncValue]
            switch form.operand {
            case .column(let bytes):
                values = [
                    try bytes.withOptionalBytes { (raw) throws(StoreError) in try core.sync.syncValue(raw, type: type) }
                ]
            case .columns(let operands):
                values = try operands.map { (bytes) throws(StoreError) in
                    try bytes.withOptionalBytes { (raw) throws(StoreError) in try core.sync.syncValue(raw, type: type) }
                }
            case .text(let text):
                values = [.string(text)]
            }
            return .comparison(
                SyncComparison(
                    property: binding.columnNames[column], type: SyncType(type),
                    operator: syncOperator,
                    values: values, caseInsensitive: form.options.contains(.caseInsensitive),
                    diacriticInsensitive: form.options.contains(.diacriticInsensitive)))
        }
    }

    private static func syncOperator(_ op: QueryOperator) -> SyncComparison.Operator? {
        switch op {
        case .equal: .equal
        case .notEqual: .notEqual
        case .less: .less
        case .lessOrEqual: .lessOrEqual
        case .greater: .greater
        case .greaterOrEqual: .greaterOrEqual
        case .in: .oneOf
        case .beginsWith: .beginsWith
        case .endsWith: .endsWith
        case .contains: .contains
        case .like: .like
        case .text: nil
        }
    }
}
