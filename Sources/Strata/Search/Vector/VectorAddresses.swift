/// Where a graph's nodes and links lie in the map, remembered while one read snapshot lasts: a search
/// then finds a node it met in an earlier query by a hash lookup, not a walk down the B-tree. It holds
/// addresses only (16 bytes per node met, 32 per node's links), never vectors: the graph stays in
/// the map. Confined to its Store's thread, as the snapshot is.
///
/// Valid for one snapshot generation of one Store (`StoreCore.vectorAddresses(for:)` drops it when
/// the generation changes); never used inside a write, where a put may move a value.
final class VectorAddresses {
    let generation: UInt64
    /// Per document: where its vector starts (its value's size was checked when it was met).
    @exclusivity(unchecked) var nodes = DocumentTable<UnsafeRawPointer>()
    /// Per level, per document: its links' bytes (an empty buffer: no links there).
    @exclusivity(unchecked) var links: [DocumentTable<UnsafeRawBufferPointer>] = []

    init(generation: UInt64) { self.generation = generation }
}
