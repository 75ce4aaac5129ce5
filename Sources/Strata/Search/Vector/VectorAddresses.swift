/// Where a graph's nodes and links lie in the map, remembered while one read snapshot lasts: a search
/// then finds a node it met in an earlier query by a hash lookup, not a walk down the B-tree. It holds
/// addresses only (16 bytes per node met, 32 per node's links), never vectors: the graph stays in
/// the map. Confined to its Store's thread, as the snapshot is.
///
/// Once the snapshot's searches have paid for as many B-tree descents as one walk of the graph's
/// tables costs, the graph loads every address with that walk (`VectorGraph.loadAddresses`), as a
/// ski rental buys once the rent paid has reached the price: a snapshot that answers a few queries
/// never pays for the walk, one that answers many pays at most about twice what the cheaper way
/// would have cost. After the walk a document the addresses lack has no node, and when the
/// documents are dense (spanning less than twice their count, as integer keys and numbered keys do),
/// the addresses are arrays indexed by document: 8 bytes per vector, 16 per node's bottom links.
///
/// Valid for one snapshot generation of one Store (`StoreCore.vectorAddresses(for:)` drops it when
/// the generation changes); never used inside a write, where a put may move a value.
final class VectorAddresses {
    /// What the addresses say of a document.
    enum Lookup<Value> {
        case known(Value)
        /// The graph has no such node (or no links there): the addresses are complete.
        case absent
        /// Not met yet: look it up in the map.
        case unknown
    }

    let generation: UInt64
    /// Per document: where its vector starts (its value's size was checked when it was met).
    @exclusivity(unchecked) private var nodes = DocumentTable<UnsafeRawPointer>()
    /// Per level, per document: its links' bytes (an empty buffer: no links there).
    @exclusivity(unchecked) private var links: [DocumentTable<UnsafeRawBufferPointer>] = []
    /// After a walk over dense documents: by document, every vector and bottom links (levels above
    /// stay in `links`).
    @exclusivity(unchecked) private var denseVectors: [UnsafeRawPointer?] = []
    @exclusivity(unchecked) private var denseLinks: [UnsafeRawBufferPointer] = []
    /// The document at index 0 of the arrays (integer keys' documents start at 2^63: signed keys).
    private var denseBase: UInt64 = 0
    /// The walked addresses are arrays by document.
    private(set) var isDense = false
    /// Every node and every links value of the graph is known.
    private(set) var isComplete = false
    /// Values looked up in the map (B-tree descents) since the snapshot began.
    private(set) var descents = 0
    /// Whether a walk may load every address: values are the map's own bytes, not copies (an
    /// encrypted file's values are opened into memory, so a walk would copy the whole graph).
    let mayWalk: Bool

    /// Walk steps (a cursor's next entry, on pages read in order, its address kept) that cost about
    /// one descent to a node met at random, measured on 100,000 nodes of 384 floats (Docs/Search.md).
    static let walkStepsPerDescent = 8

    init(generation: UInt64, mayWalk: Bool) {
        self.generation = generation
        self.mayWalk = mayWalk
    }

    /// Whether the descents paid so far have reached the cost of walking `entries` values.
    func walkPays(entries: UInt64) -> Bool {
        mayWalk && !isComplete && UInt64(descents) * UInt64(Self.walkStepsPerDescent) >= entries
    }

    @inline(__always)
    func vector(of document: UInt64) -> Lookup<UnsafeRawPointer> {
        if isDense {
            let offset = document &- denseBase
            guard offset < UInt64(denseVectors.count), let vector = denseVectors[Int(offset)] else { return .absent }
            return .known(vector)
        }
        if let vector = nodes[document] { return .known(vector) }
        return isComplete ? .absent : .unknown
    }

    func links(of document: UInt64, level: Int) -> Lookup<UnsafeRawBufferPointer> {
        if isDense, level == 0 {
            let offset = document &- denseBase
            guard offset < UInt64(denseLinks.count) else { return .absent }
            return .known(denseLinks[Int(offset)])
        }
        if level < links.count, let known = links[level][document] { return .known(known) }
        return isComplete ? .absent : .unknown
    }

    /// A vector found by a descent.
    func met(vector: UnsafeRawPointer, of document: UInt64) {
        descents += 1
        nodes[document] = vector
    }

    /// A node's links found by a descent (an empty buffer: none there).
    func met(links value: UnsafeRawBufferPointer, of document: UInt64, level: Int) {
        descents += 1
        while links.count <= level { links.append(DocumentTable()) }
        links[level][document] = value
    }

    /// A descent that found nothing.
    func metNothing() { descents += 1 }

    /// Asks the memory for where `document`'s vector address is kept (a lookup a few steps later
    /// then waits less).
    @inline(__always)
    func prefetchVector(of document: UInt64) {
        if isDense {
            let offset = document &- denseBase
            guard offset < UInt64(denseVectors.count) else { return }
            denseVectors.withUnsafeBufferPointer {
                MemoryHint.prefetch(UnsafeRawPointer($0.baseAddress! + Int(offset)))
            }
        } else {
            nodes.prefetch(document)
        }
    }

    /// Every address, from a walk (`Walk`).
    func install(_ walk: Walk) {
        nodes = walk.nodes
        links = walk.links
        denseVectors = walk.denseVectors
        denseLinks = walk.denseLinks
        denseBase = walk.base
        isDense = walk.isDense
        isComplete = true
    }

    /// The addresses a walk of the graph's tables collects (`VectorGraph.loadAddresses`).
    struct Walk {
        fileprivate var nodes = DocumentTable<UnsafeRawPointer>()
        fileprivate var links: [DocumentTable<UnsafeRawBufferPointer>] = [DocumentTable()]
        fileprivate var denseVectors: [UnsafeRawPointer?] = []
        fileprivate var denseLinks: [UnsafeRawBufferPointer] = []
        fileprivate let isDense: Bool
        fileprivate let base: UInt64

        /// Room for `count` nodes, documents `smallest` through `largest`.
        init(count: Int, smallest: UInt64, largest: UInt64) {
            base = smallest
            isDense = largest >= smallest && largest - smallest < UInt64(2 * count + 1024)
            if isDense {
                let size = Int(largest - smallest) + 1
                denseVectors = Array(repeating: nil, count: size)
                denseLinks = Array(repeating: UnsafeRawBufferPointer(start: nil, count: 0), count: size)
            } else {
                nodes = DocumentTable(minimumCapacity: count)
                links = [DocumentTable(minimumCapacity: count)]
            }
        }

        /// A node's vector (a document outside those the walk was made for cannot come: they were
        /// the walk's first and last).
        mutating func add(vector: UnsafeRawPointer, of document: UInt64) {
            guard isDense else {
                nodes.insert(document, vector)
                return
            }
            let offset = document &- base
            if offset < UInt64(denseVectors.count) { denseVectors[Int(offset)] = vector }
        }

        /// A node's links at `level` (those of a document outside the nodes', no node's, are left
        /// out: no search reaches them).
        mutating func add(links value: UnsafeRawBufferPointer, of document: UInt64, level: Int) {
            if isDense, level == 0 {
                let offset = document &- base
                if offset < UInt64(denseLinks.count) { denseLinks[Int(offset)] = value }
                return
            }
            while links.count <= level { links.append(DocumentTable()) }
            links[level].insert(document, value)
        }
    }
}
