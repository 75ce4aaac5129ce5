#if DEBUG
    import Synchronization

    /// Debug-only failure injection for the calls in `LMDB`: makes the next call(s) of a kind, on the
    /// calling thread only, fail with a chosen error. Tests use it to prove what a full disk (`ENOSPC`),
    /// a full map or a full reader table does, without filling a disk. Scoped to one thread so that tests
    /// running in parallel never see each other's faults.
    enum LMDBFaults {
        private struct Key: Hashable {
            let call: LMDB.Call
            let thread: ThreadIdentity
        }

        private struct Armed {
            var error: LMDBError
            var remaining: Int
            var skip: Int
        }

        private static let armedCount = Atomic<Int>(0)
        private static let armed = Locked<[Key: Armed]>([:])

        /// Makes `times` calls of kind `call` on this thread fail with `error`, after letting `skip` pass.
        static func inject(_ error: LMDBError, into call: LMDB.Call, times: Int = 1, after skip: Int = 0) {
            armed.withLock { table in
                let key = Key(call: call, thread: .current)
                if table[key] == nil { armedCount.add(1, ordering: .relaxed) }
                table[key] = Armed(error: error, remaining: times, skip: skip)
            }
        }

        /// Disarms every fault armed on this thread.
        static func clear() {
            armed.withLock { table in
                for key in table.keys where key.thread == .current {
                    table[key] = nil
                    armedCount.subtract(1, ordering: .relaxed)
                }
            }
        }

        static func take(_ call: LMDB.Call) -> LMDBError? {
            guard armedCount.load(ordering: .relaxed) > 0 else { return nil }
            return armed.withLock { table -> LMDBError? in
                let key = Key(call: call, thread: .current)
                guard var fault = table[key] else { return nil }
                if fault.skip > 0 {
                    fault.skip -= 1
                    table[key] = fault
                    return nil
                }
                fault.remaining -= 1
                if fault.remaining <= 0 {
                    table[key] = nil
                    armedCount.subtract(1, ordering: .relaxed)
                } else {
                    table[key] = fault
                }
                return fault.error
            }
        }
    }
#endif
