/// Where an `add` under `.modified` or `.all` puts the embedded objects of an object whose row is
/// stored already: each new (unmanaged) embedded object takes the key of the stored embedded object
/// in the same slot — a to-one link's, the same List position, the same Map key — so that the stored
/// one is updated in place, as Realm does (an accessor kept from before reads the new values), not
/// deleted and made again. Slots the new value leaves empty drop their stored embedded objects as
/// any update does (`StoreCore.droppedEmbedded`).
enum EmbeddedSlots {
    /// The stored embedded objects of `old` (the row of `object`, stored under `key`), each paired
    /// with the object `object`'s property now holds in its slot (managed ones included: the caller
    /// reuses the keys of unmanaged ones only).
    static func pairs(
        of object: Object, binding: TableBinding, old: RowView, key: RowKey, core: StoreCore
    ) throws(StoreError) -> [(object: Object, key: RowKey)] {
        var pairs: [(object: Object, key: RowKey)] = []
        for link in binding.links where core.linksEmbedded(link) {
            let property = binding.propertyOfColumn[link.column]
            guard property >= 0, let target = core.tables.existingBinding(named: link.target) else { continue }
            let value = binding.schema.accessors[property].unmanagedValue(of: object)
            var slots: [(object: Object, stored: [UInt8])] = []
            do throws(RowDamage) {
                guard let column = try old.column(link.column) else { continue }
                switch link.type {
                case .list:
                    let now = (value as? AnyList)?.linkedObjects ?? []
                    for (element, bytes) in zip(now, try ListFormat.elements(column).compactMap { $0 }) {
                        slots.append((element, Array(bytes)))
                    }
                case .map:
                    let now = Dictionary(
                        ((value as? AnyMapOfLinks)?.linkedObjectsByKey ?? []).map { ($0.key, $0.object) },
                        uniquingKeysWith: { first, _ in first })
                    for entry in try MapFormat.entries(column) {
                        guard let bytes = entry.value,
                            let element = now[String(decoding: entry.key, as: UTF8.self)]
                        else { continue }
                        slots.append((element, Array(bytes)))
                    }
                case .set:
                    continue  // a set has no slots: its embedded objects are made again
                default:
                    if let element = value as? Object { slots.append((element, Array(column))) }
                }
            } catch {
                throw .damaged(at: "\(binding.location(of: key)).\(link.property)", error)
            }
            for (element, bytes) in slots {
                let stored = try bytes.withBytes { (raw) throws(StoreError) in
                    try core.rows.decodeRowKey(raw, binding: target)
                }
                pairs.append((element, stored))
            }
        }
        return pairs
    }
}
