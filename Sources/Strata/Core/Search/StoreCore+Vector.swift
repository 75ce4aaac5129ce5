/// A Store reads its vector indexes in the transaction it reads rows in: its snapshot, or its open
/// write (whose index changes are already in its tables).
extension StoreCore: VectorReading {
    /// The addresses of `index`'s values met in this snapshot generation, or nil inside a write.
    func vectorAddresses(for index: VectorIndex) -> VectorAddresses? {
        guard session == nil else { return nil }
        if let known = vectorAddressCache[index.nodes.dbi], known.generation == generation { return known }
        let fresh = VectorAddresses(generation: generation, mayWalk: environment.sealing == nil)
        vectorAddressCache[index.nodes.dbi] = fresh
        return fresh
    }
}
