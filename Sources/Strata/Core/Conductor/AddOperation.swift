/// Adds a graph of objects (roots and everything they link to) all or nothing. While it writes, every
/// unmanaged object of the graph holds its new key (`_key`, with `_binding` marking it as keyed), so
/// encoding a row only writes the keys of its links; the objects become managed only after it.
final class AddOperation {
    private unowned(unsafe) let core: StoreCore  // the core runs the operation, start to end
    private let session: WriteSession
    private let policy: Store.UpdatePolicy
    /// Whether objects managed by another thread's Store of this file may be linked to (by key, once
    /// their row is found in this write): for a write handed to a background queue.
    private let linksAcrossThreads: Bool
    /// The unmanaged objects to store, in order. Each holds its new key meanwhile, and its binding
    /// marks it as taken (an unmanaged object has none otherwise).
    private var pending: [(object: Object, binding: TableBinding)] = []

    init(core: StoreCore, session: WriteSession, policy: Store.UpdatePolicy, linksAcrossThreads: Bool = false) {
        self.core = core
        self.session = session
        self.policy = policy
        self.linksAcrossThreads = linksAcrossThreads
    }

    /// Adds the graph and manages its new objects.
    func run(_ roots: some Collection<Object>) throws(StoreError) {
        try storeGraph(roots)
        for (object, binding) in pending { core.manage(object, binding: binding, key: object._key) }
    }

    /// Adds the graph without managing anything: returns each object stored, with its key.
    func store(_ roots: some Collection<Object>) throws(StoreError) -> [(
        object: Object, binding: TableBinding, key: RowKey
    )] {
        try storeGraph(roots)
        return pending.map { object, binding in (object, binding, object._key) }
    }

    /// Stores the graph; afterwards `pending` lists the objects stored, each holding its key.
    private func storeGraph(_ roots: some Collection<Object>) throws(StoreError) {
        // 1. Walk the graph and check everything that can be checked before writing. Each object
        // found is marked as taken (`_binding` set: an object twice in the graph is stored once).
        defer {
            for (object, _) in pending { object._binding = nil }  // the keys were lent for the write
        }
        pending.reserveCapacity(roots.count)
        var lendsKeys = false
        var stack: [Object] = []
        var lastType: ObjectIdentifier?
        var lastBinding: TableBinding?
        for root in roots {
            stack.append(root)
            while let object = stack.popLast() {
                if object._binding != nil, object._store == nil { continue }  // taken by this add already
                if try isStored(object) { continue }
                // Batches are mostly of one type: its binding is looked up once.
                let objectType = ObjectIdentifier(type(of: object))
                let binding: TableBinding
                if objectType == lastType, let lastBinding {
                    binding = lastBinding
                } else {
                    binding = try core.binding(for: type(of: object))
                    (lastType, lastBinding) = (objectType, binding)
                }
                object._binding = binding
                pending.append((object, binding))
                if binding.reachesObjects {
                    stack += try core.linkedObjects(of: object, binding: binding).reversed()
                }
                lendsKeys = lendsKeys || binding.reachesObjects || binding.primaryKeyType == .string
            }
        }
        // Each object is lent its key before anything is written when rows link to one another (a
        // row holds the keys of its links), or when a key may be refused (a String over 510 bytes):
        // then nothing is written at all. Otherwise each row's key comes from the row itself.
        // An update keeps the stored embedded objects of the slots it fills (`EmbeddedSlots`): those
        // new embedded objects take the stored ones' keys, and are stored over them.
        var reused: [ObjectIdentifier: RowKey] = [:]
        if lendsKeys {
            let taken = Set(pending.map { ObjectIdentifier($0.object) })
            let buffer = ScratchBuffer()  // holds each stored row while its slots are read
            for (object, binding) in pending {
                if let key = reused[ObjectIdentifier(object)] {
                    object._key = key
                } else {
                    object._key = try core.newKey(for: object, binding: binding, session: session)
                }
                guard policy != .error, binding.hasLinkColumns, ownsEmbedded(binding),
                    let old = try core.copyOfRow(binding, key: object._key, session: session, into: buffer)
                else { continue }
                let pairs = try EmbeddedSlots.pairs(
                    of: object, binding: binding, old: old, key: object._key, core: core)
                withExtendedLifetime(buffer) {}
                for (element, key) in pairs
                where taken.contains(ObjectIdentifier(element)) && reused[ObjectIdentifier(element)] == nil {
                    reused[ObjectIdentifier(element)] = key
                }
            }
        }
        // 2. Write. Under `.error` every write is an insert, so a duplicate key is undone by deleting
        // the rows inserted so far; any other failure forbids committing the transaction.
        var inserted: [(key: RowKey, binding: TableBinding)] = []
        var stored = 0
        do {
            for (object, binding) in pending {
                let result = try core.store(
                    object, binding: binding, key: lendsKeys ? object._key : nil, policy: policy, session: session,
                    replacing: reused[ObjectIdentifier(object)] != nil)
                object._key = result.key
                if result.inserted { inserted.append((result.key, binding)) }
                stored += 1
            }
        } catch {
            if stored > 0 { undo(inserted, after: error) }
            throw error
        }
    }

    /// Whether rows of `binding`, a type with links, hold embedded objects (asked once per type of the
    /// operation; a type without links never asks).
    private var ownsEmbeddedByType: [ObjectIdentifier: Bool] = [:]

    private func ownsEmbedded(_ binding: TableBinding) -> Bool {
        let type = ObjectIdentifier(binding)
        if let known = ownsEmbeddedByType[type] { return known }
        let owns = binding.links.contains { core.linksEmbedded($0) }
        ownsEmbeddedByType[type] = owns
        return owns
    }

    /// Whether `object` is stored already: managed by this Store, or (`linksAcrossThreads`) by another
    /// Store of this file whose row this write can see.
    private func isStored(_ object: Object) throws(StoreError) -> Bool {
        guard linksAcrossThreads, let owner = object._core, owner !== core,
            owner.environment === core.environment, let binding = object._tableBinding
        else { return try core.isManagedHere(object) }
        guard try core.rows.fetchRow(try core.binding(for: binding.schema.type), key: object._key) != nil else {
            throw .deletedInAnotherThread
        }
        return true
    }

    /// Takes back what the operation stored before `error`, or, when that is impossible, forbids the
    /// transaction to commit. (A failing object stores nothing itself: LMDB failures poison the
    /// transaction on their own, and every other failure comes before its first put.)
    private func undo(_ inserted: [(key: RowKey, binding: TableBinding)], after error: StoreError) {
        guard case .alreadyExists = error, policy == .error else {
            session.poison(error)
            return
        }
        do {
            for (key, binding) in inserted.reversed() {
                _ = try core.deleteRow(key: key, binding: binding, session: session)
            }
        } catch {
            session.poison(error)
        }
    }
}
