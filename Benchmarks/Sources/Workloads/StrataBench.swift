import Foundation
@_spi(StrataSync) import Strata

/// The workloads as a Strata user writes them.
final class StrataBench: BenchSystem {
    let store: Store

    init(directory: URL, sync: Sync) throws {
        var configuration = Store.Configuration(fileURL: directory.appendingPathComponent("bench.strata"))
        configuration.objectTypes = [Item.self, RichItem.self]
        configuration.durability = sync == .noSync ? .noSync : .full
        // Under valgrind (callgrind counts), a smaller address-space reservation than the default 64 GiB.
        if let size = ProcessInfo.processInfo.environment["STRATA_BENCH_MAXIMUM_SIZE"].flatMap(Int.init) {
            configuration.maximumSize = size
        }
        store = try Store(configuration: configuration)
        // STRATA_BENCH_CAPTURE=1: every change to Item recorded in the outbox (what sync costs a write).
        if ProcessInfo.processInfo.environment["STRATA_BENCH_CAPTURE"] != nil {
            try store.captureChanges(of: [Item.self])
        }
    }

    func insert(_ ids: Range<Int>, perTransaction: Int) throws {
        var start = ids.lowerBound
        while start < ids.upperBound {
            let end = min(start + perTransaction, ids.upperBound)
            try store.write {
                for id in start..<end {
                    try store.add(Item(id: id, score: Double(id), name: itemName))
                }
            }
            start = end
        }
    }

    func concurrentInsert(_ ids: Range<Int>, writers: Int) throws {
        let configuration = store.configuration
        try waitForTask {
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<writers {
                    let share = Array(stride(from: ids.lowerBound + writer, to: ids.upperBound, by: writers))
                    group.addTask { try await AsyncWriter().insert(share, configuration: configuration) }
                }
                try await group.waitForAll()
            }
        }
        try store.refresh()
    }

    func prepareAddPremade(count: Int) throws -> () throws -> Void {
        let items = (0..<count).map { Item(id: $0, score: Double($0), name: itemName) }
        return { [store] in
            try store.write {
                for item in items {
                    try store.add(item)
                }
            }
        }
    }

    func prepareAddContentsOf(count: Int) throws -> () throws -> Void {
        let items = (0..<count).map { Item(id: $0, score: Double($0), name: itemName) }
        return { [store] in
            try store.write { try store.add(contentsOf: items) }
        }
    }

    func scanValues() throws -> (sum: Double, rows: Int) {
        var sum = 0.0
        var rows = 0
        for score in store.objects(Item.self).values(of: \.score) {
            sum += score
            rows += 1
        }
        return (sum, rows)
    }

    func sumScores() throws -> (sum: Double, rows: Int) {
        let items = store.objects(Item.self)
        return (items.sum(of: \.score), items.count)
    }

    /// One property of each match, as a Strata user reads one column (`values(of:)`, as GRDB's
    /// `SELECT score … WHERE`).
    func scanFiltered(above threshold: Double) throws -> (sum: Double, rows: Int) {
        var sum = 0.0
        var rows = 0
        for score in store.objects(Item.self).where({ $0.score > threshold }).values(of: \.score) {
            sum += score
            rows += 1
        }
        return (sum, rows)
    }

    func scanFilteredObjects(above threshold: Double) throws -> (sum: Double, rows: Int) {
        var sum = 0.0
        var rows = 0
        for item in store.objects(Item.self).where({ $0.score > threshold }) {
            sum += item.score
            rows += 1
        }
        return (sum, rows)
    }

    func countFiltered(above threshold: Double) throws -> Int {
        store.objects(Item.self).where { $0.score > threshold }.count
    }

    func updateAll() throws {
        try store.write {
            for item in store.objects(Item.self) {
                item.score += 1
            }
        }
    }

    func prepareUpsertHalfChanged(count: Int) throws -> () throws -> Void {
        let items = (0..<count).map { id in
            Item(id: id, score: id < count / 2 ? Double(id) + 1 : Double(id), name: itemName)
        }
        return { [store] in
            try store.write {
                for item in items {
                    try store.add(item, update: .modified)
                }
            }
        }
    }

    func randomReads(_ ids: [Int]) throws -> Double {
        var sum = 0.0
        for id in ids {
            guard let item = store.object(ofType: Item.self, forPrimaryKey: id) else {
                throw WorkloadError("Strata lost item \(id)")
            }
            sum += item.score
        }
        return sum
    }

    func prepareRichScan(count: Int) throws -> () throws -> (sum: Double, rows: Int) {
        try store.write {
            for index in 0..<count {
                let item = RichItem()
                item.name = itemName
                item.createdAt = Date(timeIntervalSinceReferenceDate: Double(index))
                try store.add(item)
            }
        }
        return { [store] in
            var sum = 0.0
            var rows = 0
            for item in store.objects(RichItem.self) {
                sum += item.createdAt.timeIntervalSinceReferenceDate
                rows += 1
            }
            return (sum, rows)
        }
    }

    func scan() throws -> (sum: Double, rows: Int) {
        var sum = 0.0
        var rows = 0
        for item in store.objects(Item.self) {
            sum += item.score
            rows += 1
        }
        return (sum, rows)
    }
}

/// A writer of G1: an actor with a Store of its own, one `asyncWrite` per object.
private actor AsyncWriter {
    func insert(_ ids: [Int], configuration: Store.Configuration) async throws {
        let store = try await Store(configuration: configuration, actor: self)
        for id in ids {
            try await store.asyncWrite { try store.add(Item(id: id, score: Double(id), name: itemName)) }
        }
    }
}

/// Runs `body` to its end, the calling thread (the benchmark's main thread, no thread of the task
/// pool) waiting for it.
private func waitForTask(_ body: @escaping @Sendable () async throws -> Void) throws {
    final class Outcome: @unchecked Sendable {  // written before `done` is signalled, read after
        var error: (any Error)?
        let done = DispatchSemaphore(value: 0)
    }
    let outcome = Outcome()
    Task {
        do { try await body() } catch { outcome.error = error }
        outcome.done.signal()
    }
    outcome.done.wait()
    if let error = outcome.error { throw error }
}
