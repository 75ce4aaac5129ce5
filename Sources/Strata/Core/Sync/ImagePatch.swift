/// How an update's payload changes an object's image (`ChangePayload`: every property of the object,
/// as StrataSync's server keeps it beside the typed columns): each property the update names replaces
/// the image's; a Map patch (`MapPatch`) is applied to the image's Map, so that the image holds what
/// the server's `jsonb` column holds after `(column - removed) || set`. The server runs the same rule
/// in SQL (`strata.patched_image`, StrataSync's `ServerImages`); this one composes a batch's updates
/// of one object before they are sent, and is the reference the server's is tested against.
@_spi(StrataSync)
extension ChangePayload {
    /// `base` (an image, or an earlier update's payload) with `patch` (an update's payload) applied: a
    /// property of `patch` replaces `base`'s; a Map patch over a whole Map gives the whole patched Map,
    /// over a Map patch the two patches composed (the later key wins). Over nothing, a Map patch is
    /// applied to an empty Map when `base` is an image (`baseIsImage`: it holds every property), and
    /// stays a patch when `base` is an update's payload (the Map's other keys are elsewhere).
    ///
    /// - Throws: `Damage` when either is not a payload, or a Map or Map patch in them is damaged.
    public static func patched(_ base: [UInt8], with patch: [UInt8], baseIsImage: Bool) throws(Damage) -> [UInt8] {
        var properties = try decode(base)
        for change in try decode(patch) {
            let position = properties.firstIndex { $0.name == change.name }
            var merged = change
            if change.isMapPatch, let position {
                let old = properties[position]
                merged = try mapPatched(old.bytes, isPatch: old.isMapPatch, with: change.bytes ?? [])
            } else if change.isMapPatch, baseIsImage {
                merged = try mapPatched(nil, isPatch: false, with: change.bytes ?? [])
            }
            let property = IncomingChange.Property(
                name: change.name, bytes: merged.bytes, isMapPatch: merged.isMapPatch)
            if let position {
                properties[position] = property
            } else {
                properties.append(property)
            }
        }
        var writer = Writer(capacity: base.count + patch.count)
        for property in properties {
            writer.append(name: property.name, value: property.bytes, isMapPatch: property.isMapPatch)
        }
        return writer.finish()
    }

    /// A Map (nil: empty), or an earlier Map patch (`isPatch`), with a Map patch applied.
    private static func mapPatched(_ old: [UInt8]?, isPatch: Bool, with patch: [UInt8]) throws(Damage)
        -> IncomingChange.Property
    {
        do throws(RowDamage) {
            let changes = try patch.withBytes { (bytes) throws(RowDamage) in try MapPatch.decode(bytes) }
            guard isPatch, let old else {
                let map = try old.withOptionalBytes { (bytes) throws(RowDamage) in
                    try MapPatch.apply(changes, to: bytes)
                }
                return IncomingChange.Property(name: "", bytes: map, isMapPatch: false)
            }
            var composed = try old.withBytes { (bytes) throws(RowDamage) in try MapPatch.decode(bytes) }
            for change in changes {
                if let index = composed.firstIndex(where: { $0.key == change.key }) {
                    composed[index].change = change.change
                } else {
                    composed.append(change)
                }
            }
            return IncomingChange.Property(name: "", bytes: MapPatch.encode(composed), isMapPatch: true)
        } catch {
            throw Damage(message: "a Map in an update: \(error)")
        }
    }
}

extension MapPatch {
    /// A patch of these changes, in their order.
    static func encode(_ changes: [(key: String, change: Change)]) -> [UInt8] {
        _RowEncoder.columnBytes { encoder in
            encoder.writeListHeader(count: changes.count * 2)
            for (key, change) in changes {
                let start = encoder.beginElement()
                encoder.write(key)
                encoder.endElement(start)
                let bytes: [UInt8] =
                    switch change {
                    case .removed: [0]
                    case .set(nil): [2]
                    case .set(let value?): [1] + value
                    }
                bytes.withUnsafeBytes { encoder.writeElement($0) }
            }
            encoder.endColumn()
        }
    }
}
