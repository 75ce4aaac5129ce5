/// Where a graph's nodes and links lie in the map, remembered while one read snapshot lasts: a search
/// then finds a node it met in an earlier query by a hash lookup, not a walk down the B-tree. It holds
/// addresses only (16 bytes per node and level met), never vectors: the graph stays in the map.
///
/// Valid for one snapshot generation of one Store (`StoreCore.vectorAddresses(for:)` drops it when
/// the generation changes); never used inside a write, where a put may move a value.
final class VectorAddresses {
    let generation: UInt64
    var nodes = DocumentTable<UnsafeRawBufferPointer>()
    /// Per level, per document: its links' bytes (an empty buffer: no links there).
    var links: [DocumentTable<UnsafeRawBufferPointer>] = []

    init(generation: UInt64) { self.generation = generation }
}
