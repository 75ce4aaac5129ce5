/// Sums and values read from the stored rows as the walk goes: no key is collected, no object
/// made, no value decoded through a protocol witness for the common numeric types.
///
/// They serve a `Results` whose stages are conditions only (and sorts, which change no count nor
/// sum): its plan's `matches`. Other Results evaluate their objects first.
extension QueryEngine {
    /// The sum of the numeric `column` of the rows `access` finds, as `V`, read in place.
    ///
    /// - Throws: `.corrupted` naming a damaged row or an undecodable value, `.storage`.
    func sum<V: _QueryNumeric>(of column: Int, _ access: RowAccess, as type: V.Type) throws(StoreError) -> V {
        switch ColumnOrder(binding.columnTypes[column]) {
        case .double where V.self == Double.self:
            return try readColumn(column, of: access, into: DoubleSum()).total as! V
        case .signed(let width) where V.self == Int.self || V.self == Int64.self:
            let total = try readColumn(column, of: access, into: SignedSum(width: width)).total
            return V.self == Int.self ? Int(total) as! V : total as! V
        default:
            var total = V.zero
            try forEachValue(of: column, access, as: V.self) { total += $0 }
            return total
        }
    }

    /// Visits the non-null values of `column` of the rows `access` finds, decoded as `V`, in key order.
    ///
    /// - Throws: `.corrupted` naming a damaged row or an undecodable value, `.storage`.
    func forEachValue<V: _Persistable>(of column: Int, _ access: RowAccess, as type: V.Type, _ visit: (V) -> Void)
        throws(StoreError)
    {
        var damaged = false
        let context = _DecodeContext(owner: nil, column: column)
        try withoutActuallyEscaping(visit) { (visit) throws(StoreError) in
            _ = try readColumn(
                column, of: access,
                into: VisitingSink { bytes in
                    guard bytes != nil, !damaged else { return }
                    do {
                        visit(try V._strataDecodeColumn(bytes, in: context))
                    } catch {
                        damaged = true
                    }
                })
        }
        if damaged { throw .corrupted("\(binding.name).\(binding.columnNames[column]): undecodable") }
    }

    /// The values of `column` (nulls included, as `Value` decodes them) of the rows `access` finds,
    /// in key order.
    ///
    /// - Throws: `.corrupted` naming a damaged row or an undecodable value, `.storage`.
    func values<Value: _Persistable>(of column: Int, _ access: RowAccess, as type: Value.Type) throws(StoreError)
        -> [Value]
    {
        if Value.self == Double.self, binding.columnTypes[column] == .double {
            // The common numeric column, read without a decode through its protocol witness.
            // (A cast of the array, `as? [Value]`, would copy it element by element.)
            return unsafeBitCast(try readColumn(column, of: access, into: DoubleValues()).values, to: [Value].self)
        }
        var values: [Value] = []
        var failure: (any Error)?
        let context = _DecodeContext(owner: nil, column: column)
        _ = try readColumn(
            column, of: access,
            into: VisitingSink { bytes in
                guard failure == nil else { return }
                do {
                    values.append(try Value._strataDecodeColumn(bytes, in: context))
                } catch {
                    failure = error
                }
            })
        if let failure { throw .corrupted("\(binding.name).\(binding.columnNames[column]): \(failure)") }
        return values
    }
}
