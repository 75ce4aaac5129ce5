/// `[Float]`: a vector, read and written whole (a copy, unlike a live `List<Float>`, whose stored
/// bytes it shares). What `@Persisted(indexed: .vector(…))` indexes.
extension Array: _Persistable where Element == Float {
    public static var _strataSchemaType: _SchemaType { _SchemaType(.list(.float)) }

    public static func _strataZero() -> [Float] { [] }

    public func _strataEncodeColumn(into row: inout _RowEncoder) throws(StoreError) {
        FloatVectorFormat.write(self, into: &row)
    }

    public static func _strataDecodeColumn(
        _ bytes: UnsafeRawBufferPointer?, in context: _DecodeContext
    ) throws(StoreError) -> [Float] {
        guard let bytes else { throw .corrupted("a [Float] column is null") }
        do {
            return try FloatVectorFormat.floats(bytes)
        } catch {
            throw .corrupted("[Float]: \(error)")
        }
    }

    public static func _strataProbe(_ round: Int) -> [Float] { [Probe.floating(round), Probe.floating(round + 1)] }

    public static func _strataIsProbe(_ value: [Float], _ round: Int) -> Bool { value == _strataProbe(round) }
}
