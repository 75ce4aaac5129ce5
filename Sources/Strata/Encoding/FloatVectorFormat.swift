/// A `[Float]` column: the list format (`ListFormat`) with one 4-byte element per float (its bit
/// pattern, little-endian), the same bytes as a `List<Float>` column, so a model may declare either.
enum FloatVectorFormat {
    /// The floats of a stored column.
    ///
    /// - Throws: when the bytes are not a list of floats (a null element, an element not 4 bytes).
    static func floats(_ bytes: UnsafeRawBufferPointer) throws(RowDamage) -> [Float] {
        let elements = try ListFormat.elements(bytes)
        var floats: [Float] = []
        floats.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            guard let element, element.count == 4 else {
                throw RowDamage("element \(index) of a [Float] is \(element.map { "\($0.count) bytes" } ?? "null")")
            }
            floats.append(Float(bitPattern: UInt32(littleEndian: element.loadUnaligned(as: UInt32.self))))
        }
        return floats
    }

    /// Appends `floats` as the row's current column.
    static func write(_ floats: [Float], into row: inout _RowEncoder) {
        row.writeListHeader(count: floats.count)
        for value in floats {
            row.write(UInt32(4))
            row.write(value.bitPattern)
        }
        row.endColumn()
    }
}
