import CLMDBBench
import Foundation

/// The workloads in C against LMDB (the physical limit).
final class RawLMDBBench: BenchSystem {
    private let env: OpaquePointer

    init(directory: URL, sync: Sync) throws {
        var error: Int32 = 0
        guard
            let env = bench_open(
                directory.appendingPathComponent("raw.lmdb").path, sync == .noSync ? 1 : 0, 64 << 30, &error)
        else { throw WorkloadError("raw LMDB open failed: \(error)") }
        self.env = env
    }

    deinit {
        bench_close(env)
    }

    private func check(_ code: Int32) throws {
        if code != 0 { throw WorkloadError("raw LMDB failed: \(code)") }
    }

    func insert(_ ids: Range<Int>, perTransaction: Int) throws {
        try itemName.withCString { name in
            try check(bench_insert(env, Int64(ids.lowerBound), Int64(ids.count), Int64(perTransaction), name))
        }
    }

    func updateAll() throws {
        try check(bench_update_all(env))
    }

    func randomReads(_ ids: [Int]) throws -> Double {
        var sum = 0.0
        let wide = ids.map(Int64.init)
        try wide.withUnsafeBufferPointer { try check(bench_random_reads(env, $0.baseAddress, Int64($0.count), &sum)) }
        return sum
    }

    func scanFiltered(above threshold: Double) throws -> (sum: Double, rows: Int) {
        var sum = 0.0
        var rows: Int64 = 0
        try check(bench_scan_filtered(env, threshold, &sum, &rows))
        return (sum, Int(rows))
    }

    func prepareUpsertHalfChanged(count: Int) throws -> () throws -> Void {
        {
            try itemName.withCString { name in
                try self.check(bench_upsert_half_changed(self.env, Int64(count), name))
            }
        }
    }

    func scan() throws -> (sum: Double, rows: Int) {
        var sum = 0.0
        var rows: Int64 = 0
        try check(bench_scan(env, &sum, &rows))
        return (sum, Int(rows))
    }
}
